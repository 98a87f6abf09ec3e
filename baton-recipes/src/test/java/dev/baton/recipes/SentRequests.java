package dev.baton.recipes;

import dev.baton.BatonClient;
import dev.baton.BatonEventType;
import dev.baton.OperationEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The operations one client has had answered, recorded from its operation events, for tests that tell which
 * client sends what (a server-wide count cannot).
 */
public final class SentRequests {
    private final List<OperationEvent> answered = new CopyOnWriteArrayList<>();

    /** @param client the client whose operations are recorded from now on */
    public SentRequests(BatonClient client) {
        client.getOperationListenable().addListener(answered::add);
    }

    /** How many listings ({@code getChildren}) have been answered. */
    public long listings() {
        return answered.stream().filter(e -> e.type() == BatonEventType.CHILDREN).count();
    }

    /** Whether a read ({@code getData}) of {@code node} has been answered. */
    public boolean hasRead(String node) {
        return firstRead(node) >= 0;
    }

    /** Whether a listing was answered after the first read of {@code node}. */
    public boolean listedAfterReading(String node) {
        int read = firstRead(node);
        return read >= 0 && answered.subList(read, answered.size()).stream()
                .anyMatch(e -> e.type() == BatonEventType.CHILDREN);
    }

    private int firstRead(String node) {
        List<OperationEvent> now = List.copyOf(answered);
        for (int i = 0; i < now.size(); i++) {
            if (now.get(i).type() == BatonEventType.GET_DATA && now.get(i).path().equals(node)) {
                return i;
            }
        }
        return -1;
    }
}
