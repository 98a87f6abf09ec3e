package dev.baton.recipes.leader;

import java.util.Objects;

/**
 * One member of a leader election, as seen in the election's queue.
 *
 * @param id the participant's id (its node's data as UTF-8)
 * @param isLeader true for the participant whose node is first in the queue
 */
public record Participant(String id, boolean isLeader) {

    /**
     * @throws NullPointerException if {@code id} is null
     * @param id the id
     * @param isLeader the isLeader
     */
    public Participant {
        Objects.requireNonNull(id, "id");
    }

    /** {@return {@link #id()}, under Curator's name, for ported code} */
    public String getId() {
        return id;
    }

    /** The value {@code getLeader()} returns when nobody takes part: {@code Participant("", false)}. */
    static final Participant NOBODY = new Participant("", false);
}
