package dev.baton.recipes.cache;

import java.util.List;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * One watch event's place in a {@link BatonCache}'s order of delivery: a creation or change to read, a change of
 * children to list (one-shot watches), or a deletion. Its fields other than the final ones are read and written
 * only with the cache's lock held (the lock is the cache's, so {@code @GuardedBy} cannot name it here).
 */
final class CacheStep {
    /** {@link #deletedBefore} of a creation or change, which needs a read. */
    static final long READ = -1;
    /** {@link #deletedBefore} of a change of children (one-shot watches only), which needs a listing. */
    static final long LIST = -2;

    final String path;
    final long generation;
    /**
     * For a deletion: cached nodes at or below {@link #path} created before this zxid are removed
     * ({@link Long#MAX_VALUE} if the server did not say the deletion's zxid). {@link #READ} or {@link #LIST}
     * otherwise.
     */
    final long deletedBefore;
    /** Ready to apply (a deletion at once, a read once it has completed). */
    boolean done;
    /** What the read found (null: nothing, see {@link #missing}). */
    @Nullable Stat stat;
    byte @Nullable [] data;
    /** The read found no such node. */
    boolean missing;
    /** A read's node is new (one-shot watches): list its children once it is applied, to watch them. */
    boolean relist;
    /** What a listing found: the children's names (null: nothing to apply), and the parent's stat. */
    @Nullable List<String> children;
    final Stat parentStat = new Stat();

    CacheStep(String path, long generation, long deletedBefore) {
        this.path = path;
        this.generation = generation;
        this.deletedBefore = deletedBefore;
    }

    boolean isDeletion() {
        return deletedBefore != READ && deletedBefore != LIST;
    }
}
