package dev.baton.testing;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The faults an {@link EmbeddedZooKeeper} injects into chosen requests on a test's demand: the reply of the next
 * create under a path lost (the create applied), and a session's deletes refused (its connection closed before
 * they are applied). Thread-safe: set by the test, read by the server's threads.
 */
final class RequestFaults {
    private final AtomicReference<@Nullable String> dropReplyOfCreate = new AtomicReference<>();
    /** The session whose deletes are refused; 0 for none. */
    private volatile long refuseDeletesOf;
    private final AtomicInteger deletesRefused = new AtomicInteger();

    /** See {@link EmbeddedZooKeeper#dropConnectionOnNextCreate(String)}. */
    void dropReplyOfNextCreate(String pathPrefix) {
        dropReplyOfCreate.set(pathPrefix);
    }

    /** Whether the reply to a create of {@code path} is to be lost now (once). */
    boolean takeCreateReplyDrop(String path) {
        String prefix = dropReplyOfCreate.get();
        return prefix != null && path.startsWith(prefix) && dropReplyOfCreate.compareAndSet(prefix, null);
    }

    /** See {@link EmbeddedZooKeeper#refuseDeletesOf(long)}. */
    void refuseDeletesOf(long sessionId) {
        refuseDeletesOf = sessionId;
    }

    /** Whether a delete (or transaction) of {@code sessionId} is to be refused now; counts those refused. */
    boolean refusesDeleteOf(long sessionId) {
        if (sessionId == 0 || sessionId != refuseDeletesOf) {
            return false;
        }
        deletesRefused.incrementAndGet();
        return true;
    }

    /** How many deletes were refused so far. */
    int deletesRefused() {
        return deletesRefused.get();
    }
}
