package dev.baton;

import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/** The create compositions: parents, protection, create-or-set. All paths here are full (namespaced). */
final class Creates {
    static final byte[] EMPTY = new byte[0];

    private Creates() {
    }

    /**
     * A TTL mode needs a TTL and only a TTL mode takes one; ZooKeeper would otherwise drop the TTL silently or
     * fail on the server.
     */
    static void checkTtl(CreateMode mode, long ttl, String path) {
        if (mode.isTTL() && ttl <= 0) {
            throw new IllegalArgumentException("mode " + mode + " needs withTtl(...) for " + path);
        }
        if (!mode.isTTL() && ttl > 0) {
            throw new IllegalArgumentException("withTtl applies only to TTL modes, mode was " + mode);
        }
    }

    /**
     * What one create asks for. {@code stat} is null when the caller wants none, {@code protectedPrefix} when the
     * create is not protected, {@code parentMode} when parents are not created.
     */
    record Spec(String path, String userPath,
            // The bytes to send, handed on to ZooKeeper as they are; a spec lives for one create.
            @SuppressWarnings("ArrayRecordComponent") byte[] data,
            List<ACL> acl, CreateMode mode, long ttl, @Nullable Stat stat, @Nullable String protectedPrefix,
            @Nullable CreateMode parentMode, boolean orSetData, int setDataVersion) {
    }

    /**
     * Creates a node. A sequential create without protection is never retried (a retry could create a second
     * node). A protected create is retried, and each retry first looks for the node an earlier attempt may have
     * created. A plain create is retried; a retry that meets its own ephemeral node counts as success.
     */
    static CompletableFuture<String> create(DefaultBatonClient client, Exec exec, Spec spec) {
        int[] attempts = {0};
        String protectedPrefix = spec.protectedPrefix();
        Supplier<CompletableFuture<String>> attempt = () -> {
            boolean isRetry = attempts[0]++ > 0;
            if (isRetry && protectedPrefix != null) {
                return findProtected(exec, spec.path(), protectedPrefix).thenCompose(found ->
                        found != null ? CompletableFuture.completedFuture(found) : createWithParents(client, exec, spec));
            }
            return createWithParents(client, exec, spec);
        };
        CompletableFuture<String> created = spec.mode().isSequential() && protectedPrefix == null
                ? attempt.get() : exec.retrying(attempt);
        if (created.isDone() && !created.isCompletedExceptionally()) {
            return created;
        }
        return created.exceptionallyCompose(error -> {
            if (Failures.code(error) == KeeperException.Code.NODEEXISTS) {
                if (spec.orSetData()) {
                    return exec.retrying(Calls.setData(spec.path(), spec.userPath(), spec.data(), spec.setDataVersion()))
                            .thenApply(stat -> {
                                Calls.copy(stat, spec.stat());
                                return spec.path();
                            });
                }
                if (attempts[0] > 1 && spec.mode().isEphemeral()) {
                    return ownEphemeral(exec, spec, error);
                }
            }
            return Exec.<String>failed(Failures.unwrap(error));
        });
    }

    /** After a retried create met an existing ephemeral node: it is ours if our session owns it. */
    private static CompletableFuture<String> ownEphemeral(Exec exec, Spec spec, Throwable original) {
        return exec.once(Calls.exists(spec.path(), null)).thenCompose(stat -> {
            long session = exec.sessionId();
            if (stat != null && stat.getEphemeralOwner() == session) {
                Calls.copy(stat, spec.stat());
                return CompletableFuture.completedFuture(spec.path());
            }
            return Exec.failed(Failures.unwrap(original));
        });
    }

    private static CompletableFuture<String> createWithParents(DefaultBatonClient client, Exec exec, Spec spec) {
        CompletableFuture<String> first = exec.once(createCall(spec));
        CreateMode parentMode = spec.parentMode();
        if (parentMode == null) {
            return first;
        }
        return first.exceptionallyCompose(error -> {
            if (Failures.code(error) != KeeperException.Code.NONODE) {
                return Exec.failed(Failures.unwrap(error));
            }
            return mkdirs(client, exec, BatonPaths.parent(spec.path()), parentMode)
                    .thenCompose(v -> exec.once(createCall(spec)));
        });
    }

    private static ZkCall<String> createCall(Spec spec) {
        return Calls.create(spec.path(), spec.userPath(), spec.data(), spec.acl(), spec.mode(), spec.ttl(),
                spec.stat());
    }

    /**
     * Makes sure {@code path} and its ancestors exist, creating the missing ones with {@code mode} (persistent
     * or container). Tries the deepest node first, so the common case of one missing level costs one request.
     */
    static CompletableFuture<Void> mkdirs(DefaultBatonClient client, Exec exec, String path, CreateMode mode) {
        if (path.equals("/")) {
            return CompletableFuture.completedFuture(null);
        }
        List<ACL> acl = client.core().config().aclProvider().getAclForPath(path);
        String userPath = client.userPath(path);
        return exec.retrying(Calls.create(path, userPath, EMPTY, acl, mode, -1, null))
                .<Void>thenApply(created -> null)
                .exceptionallyCompose(error -> {
                    KeeperException.Code code = Failures.code(error);
                    if (code == KeeperException.Code.NODEEXISTS) {
                        return CompletableFuture.completedFuture(null);
                    }
                    if (code == KeeperException.Code.NONODE) {
                        return mkdirs(client, exec, BatonPaths.parent(path), mode)
                                .thenCompose(v -> mkdirs(client, exec, path, mode));
                    }
                    return Exec.failed(Failures.unwrap(error));
                });
    }

    /** The full path of the child of {@code path}'s parent that carries {@code prefix}, or null. */
    static CompletableFuture<String> findProtected(Exec exec, String path, String prefix) {
        String parent = BatonPaths.parent(path);
        return exec.once(Calls.getChildren(parent, parent, null, null))
                .thenApply(children -> {
                    for (String child : children) {
                        if (child.startsWith(prefix)) {
                            return BatonPaths.makePath(parent, child);
                        }
                    }
                    return null;
                })
                .exceptionallyCompose(error -> Failures.code(error) == KeeperException.Code.NONODE
                        ? CompletableFuture.completedFuture(null) : Exec.failed(Failures.unwrap(error)));
    }

    /** Deletes the node carrying {@code prefix} under {@code path}'s parent, if there is one. */
    static CompletableFuture<Void> deleteProtected(Exec exec, String path, String prefix) {
        return findProtected(exec, path, prefix).thenCompose(found -> {
            if (found == null) {
                return CompletableFuture.completedFuture(null);
            }
            return Deletes.ignoringNoNode(exec.once(Calls.delete(found, found, -1)));
        });
    }
}
