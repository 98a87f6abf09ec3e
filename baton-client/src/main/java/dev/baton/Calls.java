package dev.baton;

import dev.baton.internal.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The ZooKeeper requests the client makes, each in blocking and callback form. {@code path} is the full path
 * sent to the server; {@code userPath} is what failures name.
 */
final class Calls {
    private Calls() {
    }

    /**
     * Copies every field of a stat, for {@code storingStatIn} on the callback path: nothing when there is no
     * stat to copy (a failed request) or none to fill (the caller asked for none).
     */
    static void copy(@Nullable Stat from, @Nullable Stat to) {
        if (to == null || from == null) {
            return;
        }
        to.setAversion(from.getAversion());
        to.setCtime(from.getCtime());
        to.setCversion(from.getCversion());
        to.setCzxid(from.getCzxid());
        to.setDataLength(from.getDataLength());
        to.setEphemeralOwner(from.getEphemeralOwner());
        to.setMtime(from.getMtime());
        to.setMzxid(from.getMzxid());
        to.setNumChildren(from.getNumChildren());
        to.setPzxid(from.getPzxid());
        to.setVersion(from.getVersion());
    }

    /**
     * A mutable copy of an ACL for the handle: {@code ZooKeeper.validateACL} calls {@code acl.contains(null)},
     * which throws for immutable lists such as {@code List.of(...)} and {@code List.copyOf(...)}.
     */
    static List<ACL> forHandle(List<ACL> acl) {
        return acl == null || acl instanceof ArrayList ? acl : new ArrayList<>(acl);
    }

    /**
     * Makes the blocking form's failures name the user's path, as the callback form's do: the handle's blocking
     * API throws exceptions naming the full (namespaced) path.
     */
    private static <T> ZkCall<T> named(String path, String userPath, ZkCall<T> call) {
        if (path.equals(userPath)) {
            return call; // no namespace: the handle already names the user's path
        }
        return new ZkCall<>() {
            @Override
            public T sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                try {
                    return call.sync(zk);
                } catch (KeeperException e) {
                    if (e.getPath() == null || e.getPath().equals(userPath)) {
                        throw e;
                    }
                    KeeperException named = KeeperException.create(e.code(), userPath);
                    named.initCause(e);
                    throw named;
                }
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<T> f) {
                call.async(zk, f);
            }
        };
    }

    static ZkCall<String> create(String path, String userPath, byte[] data, List<ACL> givenAcl, CreateMode mode,
            long ttl, @Nullable Stat stat) {
        List<ACL> acl = forHandle(givenAcl);
        return named(path, userPath, new ZkCall<>() {
            @Override
            public String sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                // Without a stat to fill or a TTL, the plain create: the smallest request and reply.
                return stat == null && ttl < 0 ? zk.create(path, data, acl, mode)
                        : zk.create(path, data, acl, mode, stat, ttl);
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<String> f) {
                if (stat == null && ttl < 0) {
                    zk.create(path, data, acl, mode, (rc, p, ctx, name) -> ZkCall.complete(f, rc, userPath, name),
                            null);
                    return;
                }
                zk.create(path, data, acl, mode, (rc, p, ctx, name, s) -> {
                    copy(s, stat);
                    ZkCall.complete(f, rc, userPath, name);
                }, null, ttl);
            }
        });
    }

    static ZkCall<Stat> exists(String path, @Nullable Watcher watcher) {
        return exists(path, path, watcher);
    }

    static ZkCall<Stat> exists(String path, String userPath, @Nullable Watcher watcher) {
        return named(path, userPath, new ZkCall<>() {
            @Override
            public Stat sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                return zk.exists(path, watcher);
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<Stat> f) {
                zk.exists(path, watcher, (rc, p, ctx, s) -> {
                    if (rc == KeeperException.Code.NONODE.intValue()) {
                        f.complete(null);
                    } else {
                        ZkCall.complete(f, rc, userPath, s);
                    }
                }, null);
            }
        });
    }

    static ZkCall<byte[]> getData(String path, String userPath, @Nullable Watcher watcher, @Nullable Stat stat) {
        return named(path, userPath, new ZkCall<>() {
            @Override
            public byte[] sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                return zk.getData(path, watcher, stat);
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<byte[]> f) {
                zk.getData(path, watcher, (rc, p, ctx, data, s) -> {
                    copy(s, stat);
                    ZkCall.complete(f, rc, userPath, data);
                }, null);
            }
        });
    }

    static ZkCall<Stat> setData(String path, String userPath, byte[] data, int version) {
        return named(path, userPath, new ZkCall<>() {
            @Override
            public Stat sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                return zk.setData(path, data, version);
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<Stat> f) {
                zk.setData(path, data, version, (rc, p, ctx, s) -> ZkCall.complete(f, rc, userPath, s), null);
            }
        });
    }

    static ZkCall<List<String>> getChildren(String path, String userPath, @Nullable Watcher watcher,
            @Nullable Stat stat) {
        return named(path, userPath, new ZkCall<>() {
            @Override
            public List<String> sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                return stat == null ? zk.getChildren(path, watcher) : zk.getChildren(path, watcher, stat);
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<List<String>> f) {
                if (stat == null) {
                    zk.getChildren(path, watcher,
                            (rc, p, ctx, children) -> ZkCall.complete(f, rc, userPath, children), null);
                    return;
                }
                zk.getChildren(path, watcher, (rc, p, ctx, children, s) -> {
                    copy(s, stat);
                    ZkCall.complete(f, rc, userPath, children);
                }, null);
            }
        });
    }

    static ZkCall<Void> delete(String path, String userPath, int version) {
        return named(path, userPath, new ZkCall<>() {
            @Override
            public Void sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                zk.delete(path, version);
                return null;
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<Void> f) {
                zk.delete(path, version, (rc, p, ctx) -> ZkCall.complete(f, rc, userPath, null), null);
            }
        });
    }

    /** There is no blocking sync in the ZooKeeper API; both forms use the callback and wait. */
    static ZkCall<Void> sync(String path, String userPath) {
        return named(path, userPath, new ZkCall<>() {
            @Override
            public Void sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                CompletableFuture<Void> f = new CompletableFuture<>();
                async(zk, f);
                return Failures.await(f);
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<Void> f) {
                zk.sync(path, (rc, p, ctx) -> ZkCall.complete(f, rc, userPath, null), null);
            }
        });
    }

    static ZkCall<List<ACL>> getACL(String path, String userPath, @Nullable Stat stat) {
        Stat target = stat != null ? stat : new Stat();
        return named(path, userPath, new ZkCall<>() {
            @Override
            public List<ACL> sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                return zk.getACL(path, target);
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<List<ACL>> f) {
                zk.getACL(path, target, (rc, p, ctx, acl, s) -> {
                    copy(s, target);
                    ZkCall.complete(f, rc, userPath, acl);
                }, null);
            }
        });
    }

    static ZkCall<Stat> setACL(String path, String userPath, List<ACL> givenAcl, int version) {
        List<ACL> acl = forHandle(givenAcl);
        return named(path, userPath, new ZkCall<>() {
            @Override
            public Stat sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                return zk.setACL(path, acl, version);
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<Stat> f) {
                zk.setACL(path, acl, version, (rc, p, ctx, s) -> ZkCall.complete(f, rc, userPath, s), null);
            }
        });
    }

    static ZkCall<Void> addWatch(String path, String userPath, Watcher watcher, AddWatchMode mode) {
        return named(path, userPath, new ZkCall<>() {
            @Override
            public Void sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                zk.addWatch(path, watcher, mode);
                return null;
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<Void> f) {
                zk.addWatch(path, watcher, mode, (rc, p, ctx) -> ZkCall.complete(f, rc, userPath, null), null);
            }
        });
    }

    /** {@code watcher == null} removes all watches of the type. */
    static ZkCall<Void> removeWatches(String path, String userPath, @Nullable Watcher watcher,
            Watcher.WatcherType type, boolean local) {
        return named(path, userPath, new ZkCall<>() {
            @Override
            public Void sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                if (watcher == null) {
                    zk.removeAllWatches(path, type, local);
                } else {
                    zk.removeWatches(path, watcher, type, local);
                }
                return null;
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<Void> f) {
                if (watcher == null) {
                    zk.removeAllWatches(path, type, local, (rc, p, ctx) -> ZkCall.complete(f, rc, userPath, null),
                            null);
                } else {
                    zk.removeWatches(path, watcher, type, local,
                            (rc, p, ctx) -> ZkCall.complete(f, rc, userPath, null), null);
                }
            }
        });
    }

    /** {@code userPaths} are the operations' paths as the user gave them, for the failure's path. */
    static ZkCall<List<OpResult>> multi(List<Op> ops, List<String> userPaths) {
        return new ZkCall<>() {
            @Override
            public List<OpResult> sync(ZooKeeper zk) throws KeeperException, InterruptedException {
                try {
                    return zk.multi(ops);
                } catch (KeeperException e) {
                    // The handle's exception names no path; report the failing operation as the async form does.
                    throw TransactionImpl.failure(e.code().intValue(), userPaths, e.getResults());
                }
            }

            @Override
            public void async(ZooKeeper zk, CompletableFuture<List<OpResult>> f) {
                zk.multi(ops, (rc, p, ctx, results) -> {
                    if (rc == KeeperException.Code.OK.intValue()) {
                        f.complete(results);
                    } else {
                        f.completeExceptionally(TransactionImpl.failure(rc, userPaths, results));
                    }
                }, null);
            }
        };
    }
}
