package dev.baton.recipes.cache;

import static dev.baton.recipes.cache.CacheTesting.bytes;
import static dev.baton.recipes.cache.CacheTesting.cacheTree;
import static dev.baton.recipes.cache.CacheTesting.serverTree;
import static dev.baton.recipes.cache.CacheTesting.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.recipes.cache.BatonCacheListener.Type;
import dev.baton.recipes.cache.CacheTesting.Event;
import dev.baton.recipes.cache.CacheTesting.Recording;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Listeners hear the watch's events in the order of the writes, across paths, even when the writes are issued
 * back to back without waiting (a deletion, which needs no read, must not overtake the reads of earlier events).
 */
@Timeout(120)
@Tag("slow")
class BatonCacheOrderTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);
    private BatonClient client;
    private BatonClient writer;

    @BeforeEach
    void clients() throws InterruptedException {
        client = resources.client();
        writer = resources.client();
    }

    private <T extends AutoCloseable> T open(T resource) {
        return resources.open(resource);
    }

    /** One write as issued: its kind, path and (for a create or setData) its data. */
    private record Write(Type type, String path, String data) {
        String brief() {
            return type + " " + path;
        }

        CompletableFuture<?> issue(BatonClient c) {
            return switch (type) {
                case NODE_CREATED -> c.create().forPathAsync(path, bytes(data));
                case NODE_CHANGED -> c.setData().forPathAsync(path, bytes(data));
                case NODE_DELETED -> c.delete().forPathAsync(path);
            };
        }
    }

    private static void issueAll(BatonClient c, List<Write> writes) {
        List<CompletableFuture<?>> futures = new ArrayList<>();
        for (Write w : writes) {
            futures.add(w.issue(c)); // no waiting: one session keeps the order
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
    }

    @Test
    void theObservedCaseCreateChangeDelete() throws Exception {
        writer.create().creatingParentsIfNeeded().forPath("/pc/one", bytes("one0"));
        BatonCache cache = open(BatonCache.build(client, "/pc"));
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        cache.start();
        await().until(() -> rec.initialized);
        int from = rec.events.size();
        for (int round = 0; round < 20; round++) {
            int start = rec.events.size();
            issueAll(writer, List.of(new Write(Type.NODE_CREATED, "/pc/two", "two" + round),
                    new Write(Type.NODE_CHANGED, "/pc/one", "one" + (round + 1)),
                    new Write(Type.NODE_DELETED, "/pc/two", null)));
            await().until(() -> {
                List<String> briefs = rec.briefsFrom(start);
                return briefs.contains("NODE_CHANGED /pc/one")
                        && briefs.contains("NODE_CREATED /pc/two") == briefs.contains("NODE_DELETED /pc/two");
            });
            assertThat(text(rec.events.get(rec.events.size() - (rec.events.size() - start == 3 ? 2 : 1)).data()
                    .data())).isEqualTo("one" + (round + 1));
            List<String> briefs = rec.briefsFrom(start);
            // /pc/two's creation is reported (with its deletion, in their places) when its read came back in time;
            // if the read found it already deleted, neither is.
            if (briefs.size() == 3) {
                assertThat(briefs).containsExactly("NODE_CREATED /pc/two", "NODE_CHANGED /pc/one",
                        "NODE_DELETED /pc/two");
            } else {
                assertThat(briefs).containsExactly("NODE_CHANGED /pc/one");
            }
        }
        assertThat(from).isEqualTo(2);
        assertThat(rec.replay()).isEqualTo(cacheTree(cache));
    }

    /**
     * Every path is written once, so every write's event can be read as written: the listener must see exactly
     * the writes, in their order, with their data.
     */
    @Test
    void rapidWritesToDistinctPathsAreReportedExactlyInTheirOrder() throws Exception {
        Random random = new Random(42);
        writer.create().forPath("/order");
        BatonCache cache = open(BatonCache.build(client, "/order"));
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        cache.start();
        await().until(() -> rec.initialized);
        for (int round = 0; round < 5; round++) {
            int n = 40;
            int expected = rec.events.size() + 2 * n;
            for (int i = 0; i < n; i++) {
                writer.create().forPath("/order/s" + round + "-" + i, bytes("old"));
                writer.create().forPath("/order/d" + round + "-" + i, bytes("old"));
            }
            await().until(() -> rec.events.size() == expected);
            int start = rec.events.size();
            List<Write> writes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                writes.add(new Write(Type.NODE_CREATED, "/order/n" + round + "-" + i, "n" + i));
                writes.add(new Write(Type.NODE_CHANGED, "/order/s" + round + "-" + i, "s" + i));
                writes.add(new Write(Type.NODE_DELETED, "/order/d" + round + "-" + i, null));
            }
            Collections.shuffle(writes, random);
            issueAll(writer, writes);
            await().until(() -> rec.events.size() >= start + writes.size());
            List<Event> seen = rec.events.subList(start, rec.events.size());
            assertThat(seen.stream().map(Event::brief).toList())
                    .containsExactlyElementsOf(writes.stream().map(Write::brief).toList());
            for (int i = 0; i < writes.size(); i++) {
                if (writes.get(i).data() != null) {
                    assertThat(text(seen.get(i).data().data())).isEqualTo(writes.get(i).data());
                }
            }
        }
        assertThat(rec.replay()).isEqualTo(cacheTree(cache)).isEqualTo(serverTree(writer, "/order"));
    }

    /**
     * Many writes to a few paths (creations, changes, deletions, creations again), issued without waiting. Quick
     * changes of one node may be coalesced (a read shows the latest data), but the events must still fall on the
     * writes in order: each can be placed on a write of its path, later than the write the previous event was
     * placed on, and not after the write whose data it shows. Per path, the data shown only moves forward; at the
     * end the cache equals the server and the events replay to it.
     */
    @Test
    void rapidWritesToFewPathsKeepTheOrderOfTheWrites() throws Exception {
        Random random = new Random(7);
        writer.create().forPath("/few");
        BatonCache cache = open(BatonCache.build(client, "/few"));
        Recording rec = new Recording();
        cache.listenable().addListener(rec);
        cache.start();
        await().until(() -> rec.initialized);
        List<String> paths = List.of("/few/a", "/few/b", "/few/c", "/few/d");
        Set<String> present = new HashSet<>();
        int counter = 0;
        for (int round = 0; round < 10; round++) {
            int start = rec.events.size();
            List<Write> writes = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                String path = paths.get(random.nextInt(paths.size()));
                String data = "w" + counter++;
                if (!present.contains(path)) {
                    writes.add(new Write(Type.NODE_CREATED, path, data));
                    present.add(path);
                } else if (random.nextInt(4) == 0) {
                    writes.add(new Write(Type.NODE_DELETED, path, null));
                    present.remove(path);
                } else {
                    writes.add(new Write(Type.NODE_CHANGED, path, data));
                }
            }
            issueAll(writer, writes);
            Map<String, CacheTesting.NodeState> server = serverTree(writer, "/few");
            await().until(() -> cacheTree(cache).equals(server));
            checkPlacement(rec.events.subList(start, rec.events.size()), writes);
        }
        assertThat(rec.replay()).isEqualTo(cacheTree(cache)).isEqualTo(serverTree(writer, "/few"));
    }

    /** Places each event on a write (greedily, the earliest that fits), failing if one does not fit. */
    private static void checkPlacement(List<Event> events, List<Write> writes) {
        Map<String, Integer> dataIndex = new HashMap<>();
        for (int i = 0; i < writes.size(); i++) {
            if (writes.get(i).data() != null) {
                dataIndex.put(writes.get(i).data(), i);
            }
        }
        Map<String, Integer> lastShown = new HashMap<>();
        int last = -1;
        Event previous = null;
        for (Event e : events) {
            // A read finding a newer incarnation reports the old one's deletion and the new one's creation at
            // one write.
            boolean sameWrite = previous != null && previous.type() == Type.NODE_DELETED
                    && e.type() == Type.NODE_CREATED && previous.path().equals(e.path());
            int from = sameWrite ? last : last + 1;
            int upTo = writes.size() - 1;
            if (e.type() != Type.NODE_DELETED) {
                Integer shown = dataIndex.get(text(e.data().data()));
                assertThat(shown).as("data of %s", e.brief()).isNotNull();
                Integer before = lastShown.put(e.path(), shown);
                if (before != null) {
                    assertThat(shown).as("data of %s moves forward", e.brief()).isGreaterThan(before);
                }
                upTo = shown;
            }
            int placed = -1;
            for (int i = from; i <= upTo; i++) {
                Write w = writes.get(i);
                if (w.path().equals(e.path()) && (e.type() == Type.NODE_DELETED || w.type() != Type.NODE_DELETED)) {
                    placed = i;
                    break;
                }
            }
            if (placed < 0) {
                fail("%s (event %d) fits no write after write %d; events %s; writes %s", e.brief(),
                        events.indexOf(e), last, events.stream().map(Event::brief).toList(),
                        writes.stream().map(w -> w.brief() + (w.data() == null ? "" : " " + w.data())).toList());
            }
            last = placed;
            previous = e;
        }
    }
}
