package dev.baton.testing;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.zookeeper.server.Request;

/**
 * Thread-safe counts of client requests by ZooKeeper op code. Survives server restarts because it belongs to
 * the {@link EmbeddedZooKeeper}, not to one {@link CountingZooKeeperServer}.
 */
final class RequestCounter {

    private final LongAdder total = new LongAdder();
    private final ConcurrentHashMap<Integer, LongAdder> byOpCode = new ConcurrentHashMap<>();

    void record(int opCode) {
        total.increment();
        byOpCode.computeIfAbsent(opCode, k -> new LongAdder()).increment();
    }

    long total() {
        return total.sum();
    }

    /** A sorted snapshot keyed by ZooKeeper's op name ({@code "create"}, {@code "getData"}, ...). */
    Map<String, Long> byOperation() {
        Map<String, Long> snapshot = new TreeMap<>();
        byOpCode.forEach((op, count) -> {
            long n = count.sum();
            if (n > 0) {
                snapshot.merge(Request.op2String(op), n, Long::sum);
            }
        });
        return snapshot;
    }

    /** Not atomic with respect to concurrent {@link #record}: a request racing with a reset may survive it. */
    void reset() {
        total.reset();
        byOpCode.values().forEach(LongAdder::reset);
    }
}
