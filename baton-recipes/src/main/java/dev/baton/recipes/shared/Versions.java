package dev.baton.recipes.shared;

import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.TransactionOp;
import java.util.List;

/**
 * Version arithmetic that survives ZooKeeper's {@code int} data version wrapping around
 * ({@code Integer.MAX_VALUE + 1 == Integer.MIN_VALUE}), and a version-checked write that is correct even for
 * version {@code -1}, which {@code setData} would read as "any version". Stateless.
 */
final class Versions {
    private Versions() {
    }

    /**
     * Serial-number comparison: {@code candidate} is newer if it lies less than 2^31 steps ahead of
     * {@code current}, going round the wrap. A node's version moves by one per write, so two versions of one
     * node a process compares are never 2^31 writes apart in practice.
     */
    static boolean isNewer(int candidate, int current) {
        return candidate - current > 0;
    }

    /**
     * The operations of a transaction that sets {@code data} only if the node's version is
     * {@code expectedVersion}: a version-checked {@code setData}, except for {@code -1}, which {@code setData}
     * reads as "any version"; see {@link #setThenCheck}. ({@code -2} is fine: only {@code -1} means "any".)
     */
    static List<BatonOp> setIfVersion(BatonClient client, String path, byte[] data, int expectedVersion) {
        if (expectedVersion == -1) {
            return setThenCheck(client, path, data, expectedVersion);
        }
        return List.of(client.transactionOp().setData().withVersion(expectedVersion).forPath(path, data));
    }

    /**
     * An unchecked set followed, in the same transaction, by a check that the version is now
     * {@code expectedVersion + 1}: the transaction fails with {@code BadVersion} and changes nothing unless the
     * version was {@code expectedVersion}. Used for {@code -1} (the check is then for {@code 0}); valid for any
     * version except {@code -2}, whose successor {@code -1} a check would read as "any".
     */
    static List<BatonOp> setThenCheck(BatonClient client, String path, byte[] data, int expectedVersion) {
        if (expectedVersion == -2) {
            throw new IllegalArgumentException("-2 + 1 is the wildcard version -1");
        }
        TransactionOp ops = client.transactionOp();
        return List.of(ops.setData().forPath(path, data), ops.check().withVersion(expectedVersion + 1).forPath(path));
    }
}
