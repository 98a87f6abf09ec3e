package dev.baton;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/** The read operations. */
final class ReadBuilders {
    private ReadBuilders() {
    }

    /** The watcher options shared by the reads that can leave a watch. */
    abstract static class Watching<T> extends OpBuilder<T> {
        /** The watch to leave; null for none. */
        @Nullable Watcher watcher;

        Watching(DefaultBatonClient client) {
            super(client);
        }

        void watched0() {
            watcher = client.eventWatcher();
        }

        void usingWatcher0(Watcher w) {
            watcher = client.wrap(w);
        }
    }

    static final class Exists extends Watching<Stat> implements ExistsBuilder {
        Exists(DefaultBatonClient client) {
            super(client);
        }

        @Override
        public ExistsBuilder watched() {
            watched0();
            return this;
        }

        @Override
        public ExistsBuilder usingWatcher(Watcher watcher) {
            usingWatcher0(watcher);
            return this;
        }

        @Override
        CompletableFuture<Stat> run(Exec exec, String path, byte @Nullable [] data) {
            return exec.retrying(Calls.exists(client.fullPath(path, false), path, watcher));
        }

        @Override
        BatonEvent successEvent(String path, Stat stat) {
            int rc = stat == null ? org.apache.zookeeper.KeeperException.Code.NONODE.intValue() : 0;
            return new BatonEvent(BatonEventType.EXISTS, rc, path, path, null, null, stat, null, null, null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.EXISTS;
        }
    }

    static final class GetData extends Watching<byte[]> implements GetDataBuilder {
        private @Nullable Stat stat;
        private boolean decompressed;

        GetData(DefaultBatonClient client) {
            super(client);
            decompressed = client.core().config().compressionEnabled();
        }

        @Override
        public GetDataBuilder storingStatIn(Stat stat) {
            this.stat = Objects.requireNonNull(stat, "stat");
            return this;
        }

        @Override
        public GetDataBuilder watched() {
            watched0();
            return this;
        }

        @Override
        public GetDataBuilder usingWatcher(Watcher watcher) {
            usingWatcher0(watcher);
            return this;
        }

        @Override
        public GetDataBuilder decompressed() {
            decompressed = true;
            return this;
        }

        @Override
        CompletableFuture<byte[]> run(Exec exec, String path, byte @Nullable [] ignored) {
            String full = client.fullPath(path, false);
            if (stat == null && forEvent) {
                stat = new Stat(); // kept for the background event
            }
            CompletableFuture<byte[]> read = exec.retrying(Calls.getData(full, path, watcher, stat));
            if (!decompressed) {
                return read;
            }
            CompressionProvider provider = client.core().config().compressionProvider();
            return read.thenApply(data -> data == null ? null : provider.decompress(path, data));
        }

        @Override
        BatonEvent successEvent(String path, byte[] data) {
            return new BatonEvent(BatonEventType.GET_DATA, 0, path, path, null, data, stat, null, null, null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.GET_DATA;
        }
    }

    static final class GetChildren extends Watching<List<String>> implements GetChildrenBuilder {
        private @Nullable Stat stat;

        GetChildren(DefaultBatonClient client) {
            super(client);
        }

        @Override
        public GetChildrenBuilder storingStatIn(Stat stat) {
            this.stat = Objects.requireNonNull(stat, "stat");
            return this;
        }

        @Override
        public GetChildrenBuilder watched() {
            watched0();
            return this;
        }

        @Override
        public GetChildrenBuilder usingWatcher(Watcher watcher) {
            usingWatcher0(watcher);
            return this;
        }

        @Override
        CompletableFuture<List<String>> run(Exec exec, String path, byte @Nullable [] data) {
            if (stat == null && forEvent) {
                stat = new Stat(); // kept for the background event
            }
            return exec.retrying(Calls.getChildren(client.fullPath(path, false), path, watcher, stat));
        }

        @Override
        BatonEvent successEvent(String path, List<String> children) {
            return new BatonEvent(BatonEventType.CHILDREN, 0, path, path, children, null, stat, null, null, null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.CHILDREN;
        }
    }

    static final class GetACL extends OpBuilder<List<ACL>> implements GetACLBuilder {
        private Stat stat = new Stat();

        GetACL(DefaultBatonClient client) {
            super(client);
        }

        @Override
        public GetACLBuilder storingStatIn(Stat stat) {
            this.stat = Objects.requireNonNull(stat, "stat");
            return this;
        }

        @Override
        CompletableFuture<List<ACL>> run(Exec exec, String path, byte @Nullable [] data) {
            return exec.retrying(Calls.getACL(client.fullPath(path, false), path, stat));
        }

        @Override
        BatonEvent successEvent(String path, List<ACL> acl) {
            return new BatonEvent(BatonEventType.GET_ACL, 0, path, path, null, null, stat, null, acl, null);
        }

        @Override
        BatonEventType eventType() {
            return BatonEventType.GET_ACL;
        }
    }
}
