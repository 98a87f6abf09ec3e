package dev.baton.recipes.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.retry.RetryOneTime;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** Shared helpers of the cache tests. */
final class CacheTesting {
    private CacheTesting() {
    }

    static BatonClient newClient(String connectString) throws InterruptedException {
        BatonClient client = Baton.builder().connectString(connectString)
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(5))
                .retryPolicy(new RetryOneTime(10)).build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** What identifies a node's state for comparisons: its incarnation, its data version and its data. */
    record NodeState(long czxid, long mzxid, String data) {
        static NodeState of(ChildData d) {
            return new NodeState(d.stat().getCzxid(), d.stat().getMzxid(), text(d.data()));
        }
    }

    /** The server's subtree under {@code root} (read node by node; callers make sure nobody writes meanwhile). */
    static Map<String, NodeState> serverTree(BatonClient client, String root)
            throws KeeperException, InterruptedException {
        Map<String, NodeState> tree = new TreeMap<>();
        List<String> todo = new ArrayList<>(List.of(root));
        while (!todo.isEmpty()) {
            String path = todo.remove(todo.size() - 1);
            Stat stat = new Stat();
            byte[] data;
            try {
                data = client.getData().storingStatIn(stat).forPath(path);
            } catch (KeeperException.NoNodeException e) {
                continue;
            }
            tree.put(path, new NodeState(stat.getCzxid(), stat.getMzxid(), text(data)));
            try {
                for (String child : client.getChildren().forPath(path)) {
                    todo.add(BatonPaths.makePath(path, child));
                }
            } catch (KeeperException.NoNodeException e) {
                // deleted meanwhile
            }
        }
        return tree;
    }

    static Map<String, NodeState> cacheTree(BatonCache cache) {
        Map<String, NodeState> tree = new TreeMap<>();
        cache.stream().forEach(d -> tree.put(d.path(), NodeState.of(d)));
        return tree;
    }

    /** Paths that have a watch on the server, from the {@code wchp} four-letter word. */
    static String watchesByPath(int port) {
        return fourLetter(port, "wchp");
    }

    static String fourLetter(int port, String word) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                answer.write(buffer, 0, n);
            }
            return answer.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One event as a listener received it. */
    record Event(BatonCacheListener.Type type, ChildData oldData, ChildData data) {
        String path() {
            return data != null ? data.path() : oldData.path();
        }

        String brief() {
            return type + " " + path();
        }
    }

    /** Records every event and the initialized() call, in order. */
    static final class Recording implements BatonCacheListener {
        final List<Event> events = new CopyOnWriteArrayList<>();
        volatile boolean initialized;
        volatile int initializedAt = -1;

        @Override
        public void event(Type type, ChildData oldData, ChildData data) {
            events.add(new Event(type, oldData, data));
        }

        @Override
        public void initialized() {
            initializedAt = events.size();
            initialized = true;
        }

        List<String> briefs() {
            return events.stream().map(Event::brief).toList();
        }

        List<String> briefsFrom(int from) {
            List<String> all = briefs(); // one snapshot: events may be added meanwhile
            return all.subList(from, all.size());
        }

        /**
         * Replays the events from an empty map, checking each against the state before it: a creation of a
         * node not there, a change or deletion whose old data is exactly what is there. Any lost or duplicate
         * event breaks one of these.
         */
        Map<String, NodeState> replay() {
            Map<String, NodeState> state = new TreeMap<>();
            for (Event e : events) {
                switch (e.type()) {
                    case NODE_CREATED -> {
                        assertThat(e.oldData()).as("oldData of %s", e).isNull();
                        assertThat(state).as("created twice: %s", e).doesNotContainKey(e.path());
                        state.put(e.path(), NodeState.of(e.data()));
                    }
                    case NODE_CHANGED -> {
                        assertThat(state.get(e.path())).as("changed from what was not reported: %s", e)
                                .isEqualTo(NodeState.of(e.oldData()));
                        assertThat(e.data().stat().getMzxid()).isGreaterThan(e.oldData().stat().getMzxid());
                        state.put(e.path(), NodeState.of(e.data()));
                    }
                    case NODE_DELETED -> {
                        assertThat(e.data()).as("data of %s", e).isNull();
                        assertThat(state.get(e.path())).as("deleted what was not reported: %s", e)
                                .isEqualTo(NodeState.of(e.oldData()));
                        state.remove(e.path());
                    }
                }
            }
            return state;
        }
    }

    static String dataOf(ChildData d) {
        return d == null ? null : text(Objects.requireNonNull(d).data());
    }

    static boolean sameBytes(byte[] a, byte[] b) {
        return Arrays.equals(a, b);
    }
}
