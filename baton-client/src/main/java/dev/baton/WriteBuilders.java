package dev.baton;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/** Set-data, set-ACL and sync. */
final class WriteBuilders {
    private WriteBuilders() {
    }

    static final class SetData extends OpBuilder<Stat> implements SetDataBuilder {
        private int version = -1;
        private boolean compressed;

        SetData(DefaultBatonClient client) {
            super(client);
            compressed = client.core().config().compressionEnabled();
        }

        @Override
        public SetDataBuilder withVersion(int version) {
            this.version = version;
            return this;
        }

        @Override
        public SetDataBuilder compressed() {
            compressed = true;
            return this;
        }

        @Override
        CompletableFuture<Stat> run(Exec exec, String path, byte @Nullable [] data) {
            String full = client.fullPath(path, false);
            byte[] bytes = data == null ? Creates.EMPTY : data;
            if (compressed) {
                bytes = client.core().config().compressionProvider().compress(path, bytes);
            }
            return exec.retrying(Calls.setData(full, path, bytes, version));
        }

        @Override
        BatonEvent successEvent(String path, Stat stat) {
            return new BatonEvent(BatonEventType.SET_DATA, 0, path, path, null, null, stat, null, null, null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.SET_DATA;
        }
    }

    static final class SetACL extends OpBuilder<Stat> implements SetACLBuilder {
        private @Nullable List<ACL> acl;
        private int version = -1;

        SetACL(DefaultBatonClient client) {
            super(client);
        }

        @Override
        public SetACLBuilder withACL(List<ACL> acl) {
            this.acl = List.copyOf(Objects.requireNonNull(acl, "acl"));
            return this;
        }

        @Override
        public SetACLBuilder withVersion(int aclVersion) {
            this.version = aclVersion;
            return this;
        }

        @Override
        CompletableFuture<Stat> run(Exec exec, String path, byte @Nullable [] data) {
            String full = client.fullPath(path, false);
            List<ACL> nodeAcl = acl != null ? acl : client.core().config().aclProvider().getAclForPath(full);
            return exec.retrying(Calls.setACL(full, path, nodeAcl, version));
        }

        @Override
        BatonEvent successEvent(String path, Stat stat) {
            return new BatonEvent(BatonEventType.SET_ACL, 0, path, path, null, null, stat, null, null, null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.SET_ACL;
        }
    }

    static final class Sync extends OpBuilder<Void> implements SyncBuilder {
        Sync(DefaultBatonClient client) {
            super(client);
        }

        @Override
        CompletableFuture<Void> run(Exec exec, String path, byte @Nullable [] data) {
            return exec.retrying(Calls.sync(client.fullPath(path, false), path));
        }

        @Override
        BatonEvent successEvent(String path, Void result) {
            return new BatonEvent(BatonEventType.SYNC, 0, path, path, null, null, null, null, null, null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.SYNC;
        }
    }
}
