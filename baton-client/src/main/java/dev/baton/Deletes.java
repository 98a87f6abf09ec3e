package dev.baton;

import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;

/** The delete compositions. All paths here are full (namespaced). */
final class Deletes {
    private static final int MAX_TREE_PASSES = 10;

    private Deletes() {
    }

    static CompletableFuture<Void> ignoringNoNode(CompletableFuture<Void> delete) {
        return delete.exceptionallyCompose(error -> Failures.code(error) == KeeperException.Code.NONODE
                ? CompletableFuture.completedFuture(null) : Exec.failed(Failures.unwrap(error)));
    }

    /**
     * Deletes one node with retries. A retry that finds the node gone counts as success: the earlier attempt
     * whose answer was lost must have deleted it.
     */
    static CompletableFuture<Void> deleteNode(Exec exec, String path, String userPath, int version) {
        int[] attempts = {0};
        Supplier<CompletableFuture<Void>> attempt = () -> {
            CompletableFuture<Void> f = exec.once(Calls.delete(path, userPath, version));
            return attempts[0]++ > 0 ? ignoringNoNode(f) : f;
        };
        return exec.retrying(attempt);
    }

    /** Deletes the node and all its descendants; children are deleted in parallel in asynchronous mode. */
    static CompletableFuture<Void> deleteTree(DefaultBatonClient client, Exec exec, String path, int version) {
        return deleteTree(client, exec, path, version, 0);
    }

    private static CompletableFuture<Void> deleteTree(DefaultBatonClient client, Exec exec, String path,
            int version, int pass) {
        String userPath = client.userPath(path);
        return exec.retrying(Calls.getChildren(path, userPath, null, null))
                .exceptionallyCompose(error -> Failures.code(error) == KeeperException.Code.NONODE
                        ? CompletableFuture.completedFuture(List.of()) : Exec.failed(Failures.unwrap(error)))
                .thenCompose(children -> {
                    List<CompletableFuture<Void>> deletes = new ArrayList<>(children.size());
                    for (String child : children) {
                        deletes.add(ignoringNoNode(
                                deleteTree(client, exec, BatonPaths.makePath(path, child), -1, 0)));
                    }
                    return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new));
                })
                .thenCompose(v -> deleteNode(exec, path, userPath, version))
                .exceptionallyCompose(error -> {
                    if (Failures.code(error) == KeeperException.Code.NOTEMPTY && pass < MAX_TREE_PASSES) {
                        // A child appeared while we were deleting; go round again.
                        return deleteTree(client, exec, path, version, pass + 1);
                    }
                    return Exec.<Void>failed(Failures.unwrap(error));
                });
    }
}
