package dev.baton;

import dev.baton.internal.Failures;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

final class TransactionImpl implements TransactionBuilder {
    private final DefaultBatonClient client;

    TransactionImpl(DefaultBatonClient client) {
        this.client = client;
    }

    @Override
    public List<BatonTransactionResult> forOperations(List<BatonOp> operations)
            throws KeeperException, InterruptedException {
        return Failures.await(start(true, operations));
    }

    @Override
    public List<BatonTransactionResult> forOperations(BatonOp... operations)
            throws KeeperException, InterruptedException {
        return forOperations(Arrays.asList(Objects.requireNonNull(operations, "operations")));
    }

    @Override
    public CompletableFuture<List<BatonTransactionResult>> forOperationsAsync(List<BatonOp> operations) {
        return start(false, operations);
    }

    @Override
    public BackgroundTransaction inBackground() {
        return ops -> background(ops, null, null);
    }

    @Override
    public BackgroundTransaction inBackground(BackgroundCallback callback) {
        Objects.requireNonNull(callback, "callback");
        return ops -> background(ops, callback, null);
    }

    @Override
    public BackgroundTransaction inBackground(BackgroundCallback callback, Executor executor) {
        Objects.requireNonNull(callback, "callback");
        Objects.requireNonNull(executor, "executor");
        return ops -> background(ops, callback, executor);
    }

    private void background(List<BatonOp> operations, @Nullable BackgroundCallback callback,
            @Nullable Executor executor) {
        CompletableFuture<List<BatonTransactionResult>> f = start(false, operations);
        client.deliver(f, BatonEventType.TRANSACTION, null,
                results -> new BatonEvent(BatonEventType.TRANSACTION, 0, null, null, null, null, null, null, null,
                        results),
                callback, executor);
    }

    /** Runs the transaction, reported to the operation listeners when there are any. */
    private CompletableFuture<List<BatonTransactionResult>> start(boolean blocking, List<BatonOp> operations) {
        Exec exec = client.exec(blocking);
        ClientCore core = client.core();
        if (!core.isObserved()) {
            return run(exec, operations);
        }
        Traced traced = new Traced(core, BatonEventType.TRANSACTION, null);
        return traced.report(run(exec.tracing(traced), operations));
    }

    /**
     * A transaction is not retried after a connection loss: whether it was applied cannot be told in general.
     * The caller gets the {@link KeeperException.ConnectionLossException}.
     */
    private CompletableFuture<List<BatonTransactionResult>> run(Exec exec, List<BatonOp> operations) {
        Objects.requireNonNull(operations, "operations");
        if (operations.isEmpty()) {
            throw new IllegalArgumentException("operations must not be empty");
        }
        List<Op> ops = new ArrayList<>(operations.size());
        List<String> userPaths = new ArrayList<>(operations.size());
        for (BatonOp op : operations) {
            Objects.requireNonNull(op, "operations element");
            ops.add(op.op());
            userPaths.add(op.path());
        }
        return exec.once(Calls.multi(ops, userPaths))
                .thenApply(results -> {
                    List<BatonTransactionResult> out = new ArrayList<>(results.size());
                    for (int i = 0; i < results.size(); i++) {
                        out.add(result(operations.get(i), results.get(i)));
                    }
                    return out;
                });
    }

    private BatonTransactionResult result(BatonOp op, OpResult r) {
        String resultPath = null;
        org.apache.zookeeper.data.Stat stat = null;
        int error = 0;
        if (r instanceof OpResult.CreateResult c) {
            resultPath = client.userPath(c.getPath());
            stat = c.getStat();
        } else if (r instanceof OpResult.SetDataResult s) {
            stat = s.getStat();
        } else if (r instanceof OpResult.ErrorResult e) {
            error = e.getErr();
        }
        return new BatonTransactionResult(op.type(), op.path(), resultPath, stat, error);
    }

    /**
     * The exception for a failed multi: the first failing operation's error, naming its path as the user gave it.
     */
    static KeeperException failure(int rc, List<String> userPaths, @Nullable List<OpResult> results) {
        if (results != null) {
            for (int i = 0; i < results.size() && i < userPaths.size(); i++) {
                if (results.get(i) instanceof OpResult.ErrorResult e
                        && e.getErr() != KeeperException.Code.OK.intValue()
                        && e.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                    return KeeperException.create(KeeperException.Code.get(e.getErr()), userPaths.get(i));
                }
            }
        }
        return KeeperException.create(KeeperException.Code.get(rc));
    }

    /** The factory of transaction operations. */
    static final class Ops implements TransactionOp {
        private final DefaultBatonClient client;

        Ops(DefaultBatonClient client) {
            this.client = client;
        }

        @Override
        public Create create() {
            return new Create() {
                private CreateMode mode = CreateMode.PERSISTENT;
                private @Nullable List<ACL> acl;
                private long ttl = -1;
                private boolean compressed = client.core().config().compressionEnabled();

                @Override
                public Create withMode(CreateMode mode) {
                    this.mode = Objects.requireNonNull(mode, "mode");
                    return this;
                }

                @Override
                public Create withACL(List<ACL> acl) {
                    this.acl = List.copyOf(Objects.requireNonNull(acl, "acl"));
                    return this;
                }

                @Override
                public Create withTtl(long ttlMs) {
                    if (ttlMs <= 0) {
                        throw new IllegalArgumentException("ttl must be > 0 ms, was " + ttlMs);
                    }
                    this.ttl = ttlMs;
                    return this;
                }

                @Override
                public Create compressed() {
                    compressed = true;
                    return this;
                }

                @Override
                public BatonOp forPath(String path) {
                    return forPath(path, Creates.EMPTY);
                }

                @Override
                public BatonOp forPath(String path, byte[] data) {
                    Objects.requireNonNull(data, "data");
                    String full = client.fullPath(path, mode.isSequential());
                    Creates.checkTtl(mode, ttl, path);
                    byte[] bytes = compressed ? client.core().config().compressionProvider().compress(path, data)
                            : data;
                    List<ACL> nodeAcl = acl != null ? acl : client.core().config().aclProvider().getAclForPath(full);
                    return new BatonOp(BatonOp.Type.CREATE, path,
                            Op.create(full, bytes, Calls.forHandle(nodeAcl), mode, ttl));
                }
            };
        }

        @Override
        public Delete delete() {
            return new Delete() {
                private int version = -1;

                @Override
                public Delete withVersion(int version) {
                    this.version = version;
                    return this;
                }

                @Override
                public BatonOp forPath(String path) {
                    return new BatonOp(BatonOp.Type.DELETE, path, Op.delete(client.fullPath(path, false), version));
                }
            };
        }

        @Override
        public SetData setData() {
            return new SetData() {
                private int version = -1;
                private boolean compressed = client.core().config().compressionEnabled();

                @Override
                public SetData withVersion(int version) {
                    this.version = version;
                    return this;
                }

                @Override
                public SetData compressed() {
                    compressed = true;
                    return this;
                }

                @Override
                public BatonOp forPath(String path, byte[] data) {
                    Objects.requireNonNull(data, "data");
                    byte[] bytes = compressed ? client.core().config().compressionProvider().compress(path, data)
                            : data;
                    return new BatonOp(BatonOp.Type.SET_DATA, path,
                            Op.setData(client.fullPath(path, false), bytes, version));
                }
            };
        }

        @Override
        public Check check() {
            return new Check() {
                private int version = -1;

                @Override
                public Check withVersion(int version) {
                    this.version = version;
                    return this;
                }

                @Override
                public BatonOp forPath(String path) {
                    return new BatonOp(BatonOp.Type.CHECK, path, Op.check(client.fullPath(path, false), version));
                }
            };
        }
    }
}
