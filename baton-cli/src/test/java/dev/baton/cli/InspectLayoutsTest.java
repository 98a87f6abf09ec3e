package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.atomic.DistributedAtomicInteger;
import dev.baton.recipes.atomic.DistributedAtomicLong;
import dev.baton.recipes.barriers.DistributedDoubleBarrier;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.leader.LeaderSelector;
import dev.baton.recipes.leader.LeaderSelectorListenerAdapter;
import dev.baton.recipes.locks.Hold;
import dev.baton.recipes.locks.InterProcessReadWriteLock;
import dev.baton.recipes.locks.InterProcessSemaphoreMutex;
import dev.baton.recipes.locks.InterProcessSemaphoreV2;
import dev.baton.recipes.locks.Lease;
import dev.baton.recipes.nodes.GroupMember;
import dev.baton.recipes.shared.SharedCount;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code baton inspect} on each recipe layout, made by the real recipes on a real (embedded) server: what the
 * text shows and what {@code --json} says.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("slow")
class InspectLayoutsTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Every client of a test: a participant each, so each has its own session. Closed after the test. */
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void clean() throws Exception {
        try (BatonClient admin = connect()) {
            for (String child : admin.getChildren().forPath("/")) {
                if (!child.equals("zookeeper")) {
                    admin.delete().quietly().deletingChildrenIfNeeded().forPath("/" + child); // containers go by themselves
                }
            }
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void leaderLatchShowsTheLeaderAndTheQueue() throws Exception {
        for (String id : List.of("alice", "bob", "carol")) {
            LeaderLatch latch = keep(new LeaderLatch(participant(), "/election", id));
            latch.start();
            if (id.equals("alice")) {
                assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue(); // so alice's node comes first
            }
        }
        awaitChildren("/election", 3);

        List<String> lines = inspect("/election").outLines();
        assertThat(lines.get(0)).endsWith("[leader latch: \"alice\" leads, 2 waiting]");
        assertThat(lines.get(1)).contains("latch-", "\"alice\"", "ephemeral 0x").endsWith("[#1 leader]");
        assertThat(lines.get(2)).contains("\"bob\"").endsWith("[#2 waiting]");
        assertThat(lines.get(3)).contains("\"carol\"").endsWith("[#3 waiting]");

        JsonNode recipe = json("/election").get("recipe");
        assertThat(recipe.get("type").asText()).isEqualTo("leader-latch");
        assertThat(recipe.get("leader").asText()).isEqualTo("alice");
        assertThat(recipe.get("participants")).extracting(p -> p.get("id").asText() + " " + p.get("role").asText())
                .containsExactly("alice leader", "bob waiting", "carol waiting");
    }

    @Test
    void leaderSelectorsFirstNodeIsItsLeader() throws Exception {
        CountDownLatch end = new CountDownLatch(1);
        CountDownLatch leading = new CountDownLatch(1);
        for (String id : List.of("first", "second")) {
            LeaderSelector selector = keep(new LeaderSelector(participant(), "/jobs/leader",
                    new LeaderSelectorListenerAdapter() {
                        @Override
                        public void takeLeadership(BatonClient client) throws Exception {
                            leading.countDown();
                            end.await();
                        }
                    }));
            selector.setId(id);
            selector.start();
            if (id.equals("first")) {
                assertThat(leading.await(10, TimeUnit.SECONDS)).isTrue();
            }
        }
        open.add(end::countDown); // closed first: lets the leader return before its selector closes
        awaitChildren("/jobs/leader", 2);

        List<String> lines = inspect("/jobs/leader").outLines();
        assertThat(lines.get(0)).contains("\"first\" holds it (leads), 1 waiting");
        assertThat(lines.get(1)).contains("lock-", "\"first\"").endsWith("[#1 holder (leader)]");
        assertThat(lines.get(2)).contains("\"second\"").endsWith("[#2 waiting]");
        assertThat(json("/jobs/leader").get("recipe").get("holder").asText()).isEqualTo("first");
    }

    @Test
    void everyReaderBeforeTheFirstWriterHoldsTheReadLock() throws Exception {
        Hold alice = readLock("alice").readLock().acquireAsync().get(10, TimeUnit.SECONDS);
        Hold bob = readLock("bob").readLock().acquireAsync().get(10, TimeUnit.SECONDS);
        CompletableFuture<Hold> dave = readLock("dave").writeLock().acquireAsync();
        awaitChildren("/catalog", 3);
        CompletableFuture<Hold> carol = readLock("carol").readLock().acquireAsync();
        awaitChildren("/catalog", 4);

        List<String> lines = inspect("/catalog").outLines();
        assertThat(lines.get(0)).endsWith("[read-write lock: 2 readers hold the read lock; waiting: 1 writer, "
                + "1 reader]");
        assertThat(lines.subList(1, 5)).satisfiesExactly(
                l -> assertThat(l).contains("__READ__", "\"alice\"").endsWith("[#1 holder (read)]"),
                l -> assertThat(l).contains("__READ__", "\"bob\"").endsWith("[#2 holder (read)]"),
                l -> assertThat(l).contains("__WRIT__", "\"dave\"").endsWith("[#3 waiting (write)]"),
                l -> assertThat(l).contains("__READ__", "\"carol\"").endsWith("[#4 waiting (read)]"));

        alice.release();
        bob.release();
        Hold writer = dave.get(10, TimeUnit.SECONDS);
        awaitChildren("/catalog", 2);
        assertThat(inspect("/catalog").outLines().get(0)).endsWith(
                "[read-write lock: writer \"dave\" holds the write lock; waiting: 0 writers, 1 reader]");
        JsonNode recipe = json("/catalog").get("recipe");
        assertThat(recipe.get("writer").asText()).isEqualTo("dave");
        assertThat(recipe.get("waitingReaders").asInt()).isEqualTo(1);
        writer.release();
        carol.get(10, TimeUnit.SECONDS).release();
    }

    @Test
    void semaphoreLeaseHoldersWithAndWithoutMaxLeases() throws Exception {
        List<Lease> leases = new ArrayList<>();
        for (String id : List.of("alice", "bob")) {
            leases.add(new InterProcessSemaphoreV2(participant(), "/exports", 2, id.getBytes(UTF_8))
                    .acquire(10, TimeUnit.SECONDS));
        }
        CompletableFuture<Lease> carol = new InterProcessSemaphoreV2(participant(), "/exports", 2,
                "carol".getBytes(UTF_8)).acquireAsync();
        awaitChildren("/exports/leases", 3);

        List<String> unknown = inspect("/exports").outLines();
        assertThat(unknown.get(0)).endsWith("[semaphore: 3 holders (maxLeases is not stored on the server; "
                + "--max-leases N tells holders from waiters)]");
        assertThat(String.join("\n", unknown)).contains("leases", "[lease nodes]");
        assertThat(unknown).filteredOn(l -> l.contains("-lease-")).hasSize(3)
                .allSatisfy(l -> assertThat(l).containsPattern("\\[#\\d holder]$"));

        List<String> known = inspect("/exports", "--max-leases", "2").outLines();
        assertThat(known.get(0)).endsWith("[semaphore: 2 of 2 leases held, 1 waiting]");
        assertThat(known).filteredOn(l -> l.contains("-lease-")).satisfiesExactly(
                l -> assertThat(l).contains("\"alice\"").endsWith("[#1 holder]"),
                l -> assertThat(l).contains("\"bob\"").endsWith("[#2 holder]"),
                l -> assertThat(l).contains("\"carol\"").endsWith("[#3 waiting]"));
        JsonNode recipe = json("/exports", "--max-leases", "2").get("recipe");
        assertThat(recipe.get("type").asText()).isEqualTo("semaphore");
        assertThat(recipe.get("maxLeases").asInt()).isEqualTo(2);
        assertThat(recipe.get("holders").asInt()).isEqualTo(2);
        assertThat(recipe.get("waiting").asInt()).isEqualTo(1);

        // Inspecting the leases node itself shows the same queue.
        assertThat(inspect("/exports/leases", "--max-leases", "2").outLines().get(0))
                .endsWith("[semaphore leases: 2 of 2 leases held, 1 waiting]");
        leases.forEach(Lease::close);
        carol.get(10, TimeUnit.SECONDS).close();
    }

    @Test
    void semaphoreMutexIsASemaphoreOfOneLease() throws Exception {
        BatonClient client = participant();
        // Persistent, so that the server does not sweep them away as empty containers once the lease is returned.
        client.create().creatingParentsIfNeeded().forPath("/batch/leases");
        InterProcessSemaphoreMutex batch = new InterProcessSemaphoreMutex(client, "/batch");
        batch.acquire();
        try {
            assertThat(inspect("/batch", "--max-leases", "1").outLines().get(0))
                    .endsWith("[semaphore: 1 of 1 lease held, 0 waiting]");
        } finally {
            batch.release();
        }
        awaitChildren("/batch/leases", 0);
        assertThat(inspect("/batch").outLines().get(0)).endsWith("[semaphore: no lease out]");
    }

    @Test
    void doubleBarrierMembersAndReady() throws Exception {
        List<CompletableFuture<Void>> entered = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            entered.add(new DistributedDoubleBarrier(participant(), "/race/round-1", 3).enterAsync());
        }
        awaitChildren("/race/round-1", 2);
        assertThat(inspect("/race/round-1").outLines().get(0))
                .endsWith("[double barrier: 2 members in; ready does not exist (members still entering, or all "
                        + "leaving)]");

        entered.add(new DistributedDoubleBarrier(participant(), "/race/round-1", 3).enterAsync());
        for (CompletableFuture<Void> in : entered) {
            in.get(10, TimeUnit.SECONDS);
        }
        List<String> lines = inspect("/race/round-1").outLines();
        assertThat(lines.get(0)).contains("[double barrier: 3 members in; ready exists");
        assertThat(lines).filteredOn(l -> l.endsWith("[member]")).hasSize(3);
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("ready").endsWith("[ready (the barrier is full)]"));
        JsonNode recipe = json("/race/round-1").get("recipe");
        assertThat(recipe.get("members").asInt()).isEqualTo(3);
        assertThat(recipe.get("ready").asBoolean()).isTrue();
    }

    @Test
    void countersAreShownAsNumbers() throws Exception {
        BatonClient client = participant();
        try (SharedCount count = new SharedCount(client, "/counters/workers", 7)) {
            count.start();
            new DistributedAtomicLong(client, "/counters/hits", new RetryOneTime(10)).add(1_234_567_890_123L);
            new DistributedAtomicInteger(client, "/counters/stock", new RetryOneTime(10)).add(-3);

            List<String> lines = inspect("/counters").outLines();
            assertThat(lines).contains(
                    "  hits     1234567890123 (8-byte long 0x0000011f71fb04cb)",
                    "  stock    -3 (4-byte int 0xfffffffd)",
                    "  workers  7 (4-byte int 0x00000007)");
            JsonNode children = json("/counters").get("children");
            assertThat(children).extracting(c -> c.get("path").asText() + "=" + c.get("counter").asLong())
                    .containsExactly("/counters/hits=1234567890123", "/counters/stock=-3", "/counters/workers=7");
        }
    }

    @Test
    void groupMembersWithTheirPayloads() throws Exception {
        for (String id : List.of("host-1", "host-2")) {
            keep(new GroupMember(participant(), "/services/api", id, ("10.0.0." + id.charAt(5)).getBytes(UTF_8)))
                    .start();
        }
        awaitChildren("/services/api", 2);

        List<String> lines = inspect("/services/api").outLines();
        assertThat(lines.get(0)).endsWith("[group: 2 members (host-1, host-2)]");
        assertThat(lines.get(1)).contains("host-1", "\"10.0.0.1\"", "ephemeral 0x").endsWith("[member]");
        JsonNode members = json("/services/api").get("recipe").get("members");
        assertThat(members).extracting(m -> m.get("id").asText() + " " + m.get("payload").asText())
                .containsExactly("host-1 10.0.0.1", "host-2 10.0.0.2");
    }

    @Test
    void namespacedPathsAreTheUsersOwn() throws Exception {
        try (BatonClient app = Baton.builder().connectString(zk.connectString()).retryPolicy(new RetryOneTime(10))
                .namespace("myapp").build()) {
            app.start();
            assertThat(app.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            try (LeaderLatch latch = new LeaderLatch(app, "/election", "alice")) {
                latch.start();
                assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();

                List<String> lines = inspect("/election", "--namespace", "myapp").outLines();
                assertThat(lines.get(0)).startsWith("/election  ").endsWith("[leader latch: \"alice\" leads, 0 waiting]");
                assertThat(json("/election", "--namespace", "myapp").get("path").asText()).isEqualTo("/election");
                assertThat(inspect("/myapp/election").outLines().get(0)).startsWith("/myapp/election  ");

                Cli.Result missing = Cli.baton("inspect", "/myapp/election", "--namespace", "myapp", "--connect",
                        zk.connectString());
                assertThat(missing.exitCode()).isEqualTo(1);
                assertThat(missing.err()).contains("no node /myapp/election", "namespace myapp");
            }
        }
    }

    @Test
    void jsonOfAPlainTreeIsValidAndComplete() throws Exception {
        BatonClient client = participant();
        client.create().creatingParentsIfNeeded().forPath("/plain/a", "quote \" backslash \\ tab \t é".getBytes(UTF_8));
        client.create().forPath("/plain/b", new byte[] {1, 2, 3});
        client.create().forPath("/plain/a/deep");

        JsonNode root = json("/plain", "--recursive");
        assertThat(root.get("path").asText()).isEqualTo("/plain");
        assertThat(root.get("numChildren").asInt()).isEqualTo(2);
        JsonNode a = root.get("children").get(0);
        assertThat(a.get("data").asText()).isEqualTo("quote \" backslash \\ tab \t é");
        assertThat(a.get("children").get(0).get("path").asText()).isEqualTo("/plain/a/deep");
        JsonNode b = root.get("children").get(1);
        assertThat(b.get("data").isNull()).isTrue();
        assertThat(b.get("dataHex").asText()).isEqualTo("010203");
        assertThat(b.get("ephemeralOwner").isNull()).isTrue();

        JsonNode shallow = json("/plain", "--depth", "0");
        assertThat(shallow.has("children")).isFalse();
        assertThat(shallow.get("numChildren").asInt()).isEqualTo(2);
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertThat(Cli.baton("inspect", "/", "--max-leases", "0", "--connect", zk.connectString()))
                .satisfies(r -> assertThat(r.exitCode()).isEqualTo(2))
                .satisfies(r -> assertThat(r.err()).contains("--max-leases must be > 0"));
        assertThat(Cli.baton("inspect", "/", "--depth", "2", "-r", "--connect", zk.connectString()).exitCode())
                .isEqualTo(2);
        assertThat(Cli.baton("inspect", "/", "--namespace", "/x", "--connect", zk.connectString()).err())
                .contains("--namespace takes a name without a leading '/'");
    }

    private Cli.Result inspect(String path, String... options) {
        List<String> args = new ArrayList<>(List.of("inspect", path, "--connect", zk.connectString()));
        args.addAll(List.of(options));
        Cli.Result result = Cli.baton(args.toArray(String[]::new));
        assertThat(result.exitCode()).as(result.toString()).isZero();
        return result;
    }

    private JsonNode json(String path, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of(options));
        args.add("--json");
        return JSON.readTree(inspect(path, args.toArray(String[]::new)).out());
    }

    private InterProcessReadWriteLock readLock(String id) throws InterruptedException {
        return new InterProcessReadWriteLock(participant(), "/catalog", id.getBytes(UTF_8));
    }

    private BatonClient participant() throws InterruptedException {
        return keep(connect());
    }

    private <T extends AutoCloseable> T keep(T resource) {
        open.add(resource);
        return resource;
    }

    private static BatonClient connect() throws InterruptedException {
        BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** Waits until the node has this many children: the recipes create theirs in the background. */
    private static void awaitChildren(String path, int count) throws Exception {
        try (BatonClient client = connect()) {
            org.awaitility.Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() ->
                    client.checkExists().forPath(path) != null && client.getChildren().forPath(path).size() == count);
        }
    }
}
