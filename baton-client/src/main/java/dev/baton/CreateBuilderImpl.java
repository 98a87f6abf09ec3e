package dev.baton;

import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

final class CreateBuilderImpl extends OpBuilder<String> implements CreateBuilder {
    private CreateMode mode = CreateMode.PERSISTENT;
    private long ttl = -1;
    private @Nullable List<ACL> acl;
    private @Nullable CreateMode parentMode;
    private boolean protection;
    private boolean orSetData;
    private int setDataVersion = -1;
    private boolean compressed;
    private @Nullable Stat stat;

    CreateBuilderImpl(DefaultBatonClient client) {
        super(client);
        this.compressed = client.core().config().compressionEnabled();
    }

    @Override
    public CreateBuilder withMode(CreateMode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    @Override
    public CreateBuilder withTtl(long ttlMs) {
        if (ttlMs <= 0) {
            throw new IllegalArgumentException("ttl must be > 0 ms, was " + ttlMs);
        }
        this.ttl = ttlMs;
        return this;
    }

    @Override
    public CreateBuilder withTtl(Duration ttl) {
        return withTtl(Objects.requireNonNull(ttl, "ttl").toMillis());
    }

    @Override
    public CreateBuilder withACL(List<ACL> acl) {
        this.acl = List.copyOf(Objects.requireNonNull(acl, "acl"));
        return this;
    }

    @Override
    public CreateBuilder creatingParentsIfNeeded() {
        parentMode = CreateMode.PERSISTENT;
        return this;
    }

    @Override
    public CreateBuilder creatingParentContainersIfNeeded() {
        parentMode = CreateMode.CONTAINER;
        return this;
    }

    @Override
    public CreateBuilder withProtection() {
        protection = true;
        return this;
    }

    @Override
    public CreateBuilder orSetData() {
        return orSetData(-1);
    }

    @Override
    public CreateBuilder orSetData(int version) {
        orSetData = true;
        setDataVersion = version;
        return this;
    }

    @Override
    public CreateBuilder compressed() {
        compressed = true;
        return this;
    }

    @Override
    public CreateBuilder storingStatIn(Stat stat) {
        this.stat = Objects.requireNonNull(stat, "stat");
        return this;
    }

    @Override
    CompletableFuture<String> run(Exec exec, String path, byte @Nullable [] data) {
        String full = client.fullPath(path, mode.isSequential());
        Creates.checkTtl(mode, ttl, path);
        byte[] bytes = data == null ? Creates.EMPTY : data;
        if (compressed) {
            bytes = client.core().config().compressionProvider().compress(path, bytes);
        }
        String prefix = null;
        if (protection) {
            prefix = BatonPaths.protectedPrefix(UUID.randomUUID().toString());
            full = BatonPaths.makePath(BatonPaths.parent(full), prefix + BatonPaths.nodeName(full));
        }
        List<ACL> nodeAcl = acl != null ? acl : client.core().config().aclProvider().getAclForPath(full);
        if (stat == null && forEvent) {
            stat = new Stat(); // the created node's stat, for the background event
        }
        Creates.Spec spec = new Creates.Spec(full, path, bytes, nodeAcl, mode, ttl, stat, prefix, parentMode,
                orSetData, setDataVersion);
        CompletableFuture<String> created = Creates.create(client, exec, spec);
        if (prefix != null) {
            String protectedPrefix = prefix;
            created = created.whenComplete((p, error) -> {
                if (error != null && Failures.isConnectionProblem(error)) {
                    // The create may have reached the server; remove what it left once we can.
                    Exec background = client.core().exec(false);
                    client.core().retrier().submit("remove orphaned protected node " + spec.path(),
                            () -> Creates.deleteProtected(background, spec.path(), protectedPrefix));
                }
            });
        }
        if (mode.isTTL()) {
            created = client.core().features().explainFailure(ServerFeature.TTL_NODES, created, exec.isBlocking());
        }
        return client.namespace().rootPath() == null ? created : created.thenApply(client::userPath);
    }

    @Override
    BatonEvent successEvent(String path, String created) {
        return new BatonEvent(BatonEventType.CREATE, 0, path, created, null, null, stat, null, null, null);
    }

    @Override
    BatonEventType eventType() {
        return BatonEventType.CREATE;
    }
}
