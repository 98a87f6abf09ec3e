package dev.baton.internal;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.TransactionOp;
import java.util.List;

/**
 * ZooKeeper's data version is an {@code int} that wraps ({@code Integer.MAX_VALUE + 1 == Integer.MIN_VALUE}),
 * and {@code setData} reads version {@code -1} as "any version". These helpers stay exact across both: a
 * version-checked write for any expected version, and a comparison that survives the wrap. Stateless.
 */
public final class Versions {
    private Versions() {
    }

    /**
     * The operations of a transaction that sets {@code data} only if the node's version is {@code expectedVersion}:
     * a version-checked {@code setData}, except for {@code -1}, which {@code setData} would take as "any": then
     * {@link #setThenCheck}, whose check is for {@code 0}, the successor of {@code -1}.
     *
     * @param client the client whose {@code transactionOp()} builds the operations
     * @param path the node
     * @param data the new data
     * @param expectedVersion the version the node must have
     * @return one or two operations for {@code client.transaction().forOperations(...)}
     */
    public static List<BatonOp> setIfVersion(BatonClient client, String path, byte[] data, int expectedVersion) {
        if (expectedVersion == -1) {
            return setThenCheck(client, path, data, expectedVersion);
        }
        return List.of(client.transactionOp().setData().withVersion(expectedVersion).forPath(path, data));
    }

    /**
     * An unchecked set followed, in the same transaction, by a check that the version is now
     * {@code expectedVersion + 1}: the transaction fails with {@code BadVersion} and changes nothing unless the
     * version was {@code expectedVersion}. {@link #setIfVersion} uses it for {@code -1}; it is valid for any
     * version but {@code -2}, whose successor {@code -1} a check would read as "any".
     *
     * @param client the client whose {@code transactionOp()} builds the operations
     * @param path the node
     * @param data the new data
     * @param expectedVersion the version the node must have
     * @return the two operations
     * @throws IllegalArgumentException if {@code expectedVersion} is {@code -2}
     */
    public static List<BatonOp> setThenCheck(BatonClient client, String path, byte[] data, int expectedVersion) {
        if (expectedVersion == -2) {
            throw new IllegalArgumentException("expectedVersion -2 cannot be checked this way: -2 + 1 is the "
                    + "wildcard version -1");
        }
        TransactionOp ops = client.transactionOp();
        return List.of(ops.setData().forPath(path, data), ops.check().withVersion(expectedVersion + 1).forPath(path));
    }

    /**
     * Serial-number comparison: {@code candidate} is newer if it lies less than 2^31 steps ahead of {@code current},
     * going round the wrap. A node's version moves by one per write, so two versions of one node a process compares
     * are never 2^31 writes apart in practice.
     *
     * @param candidate a version just read
     * @param current the version known so far
     * @return true if {@code candidate} is the later one
     */
    public static boolean isNewer(int candidate, int current) {
        return candidate - current > 0;
    }
}
