package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each recipe demo against one server ({@code --connect}), fast: it ends well, tells its story in order, and
 * leaves nothing on the server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("slow")
class RecipeDemosTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @AfterEach
    void nothingIsLeftOnTheServer() throws Exception {
        try (BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(client.getChildren().forPath("/")).containsExactly("zookeeper");
        }
    }

    @Test
    void readWriteLock() {
        Cli.Result result = demo("read-write-lock");
        result.assertStory(
                "read", "alice holds the read lock and reads catalog v1 (1 reader at once)",
                "read", "bob holds the read lock and reads catalog v1 (2 readers at once)",
                "wait", "dave wants the write lock",
                "wait", "carol wants the read lock: a writer is queued before her",
                "queue", "what `baton inspect /demo-read-write-lock` shows now",
                "release", "alice releases the read lock: dave still waits for bob",
                "release", "bob releases the read lock",
                "write", "dave holds the write lock",
                "read", "dave also takes the read lock",
                "release", "dave releases the write lock and stays a reader",
                "read", "carol holds the read lock beside dave and reads catalog v2",
                "rwlock", "catalog v2");
        assertThat(result.out()).contains("[read-write lock: 2 readers hold the read lock; waiting: 1 writer, 1 reader]",
                "\"carol\"", "[#4 waiting (read)]", "[#3 waiting (write)]");
    }

    @Test
    void semaphoreMutex() {
        Cli.Result result = demo("semaphore-mutex");
        result.assertStory(
                "acquire", "alice holds the lock",
                "acquire", "alice tries to take it again for 300ms: no, it is not re-entrant",
                "batch", "alice's batch runs on thread demo-alice-batch",
                "release", "alice's batch is done: thread demo-alice-batch releases the lock",
                "acquire", "holds the lock",
                "release", "batch is done",
                "acquire", "holds the lock",
                "mutex", "3 batches ran, at most 1 at a time");
    }

    @Test
    void multiLock() {
        Cli.Result result = demo("multi-lock");
        result.assertStory(
                "bank", "accounts {brokerage=500, checking=300, savings=200}, total 1000",
                "acquire", "alice holds both",
                "wait", "carol moves 50 from brokerage to checking: locks brokerage + checking within 500ms",
                "timeout", "carol could not have both within 500ms",
                "check", "carol's nodes left under brokerage and checking: 0",
                "wait", "bob moves 70 from savings to brokerage",
                "queue", "bob holds brokerage and waits for savings",
                "move", "alice moved 100",
                "acquire", "bob holds both",
                "move", "bob moved 70",
                "move", "carol moved 50",
                "bank", "total 1000: unchanged");
    }

    @Test
    void barrier() {
        Cli.Result result = demo("barrier");
        List<Integer> at = result.assertStory(
                "set", "the coordinator sets the barrier",
                "timeout", "carol: still shut after 300ms",
                "remove", "the coordinator removes the barrier",
                "barrier", "all 3 went through");
        assertThat(result.outLines().subList(at.get(2), at.get(3))).filteredOn(l -> l.contains("goes through"))
                .hasSize(3);
        assertThat(result.outLines().subList(0, at.get(2))).noneMatch(l -> l.contains("goes through"));
    }

    @Test
    void sharedCount() {
        Cli.Result result = demo("shared-count");
        result.assertStory(
                "start", "alice starts its SharedCount on /demo-shared-count (seed 3): it reads 3",
                "data", "/demo-shared-count holds 3 (4-byte int 0x00000003)",
                "set", "alice sets the count to 5",
                "hears", "hears: 5",
                "try", "bob: trySetCount(version 1, 7) -> true",
                "try", "carol: trySetCount(version 1, 6) -> false",
                "try", "carol reads 7 (version 2) again and retries: trySetCount -> true",
                "count", "everyone agrees on 8");
        for (String who : List.of("alice", "bob", "carol")) {
            assertThat(result.out()).contains(who + " hears: 5", who + " hears: 7", who + " hears: 8");
        }
    }

    @Test
    void atomicCounters() {
        Cli.Result result = demo("atomic");
        result.assertStory(
                "long", "/demo-atomic/page-views: a DistributedAtomicLong",
                "add", "page views",
                "long", "page views: 12 = 3 x 4: every increment counted once",
                "int", "initialized to 20",
                "take", "stock",
                "int", "stock: 8 = 20 - 3 x 4",
                "cas", "compareAndSet(20, 99) with a stale expectation: succeeded = false, value stays 8",
                "data", "what `baton inspect /demo-atomic` shows");
        assertThat(result.outLines()).filteredOn(l -> l.contains("  add     ")).hasSize(12);
        assertThat(result.outLines()).filteredOn(l -> l.contains("  take    ")).hasSize(12);
        assertThat(result.out()).contains("page-views  12 (8-byte long 0x000000000000000c)",
                "stock       8 (4-byte int 0x00000008)");
        assertThat(Demos.find("DistributedAtomicLong")).containsSame(Demos.find("atomic").orElseThrow());
    }

    @Test
    void persistentNode() {
        Cli.Result result = demo("persistent-node");
        result.assertStory(
                "event", "NodeCreated /demo-persistent-node/services/api/host-1",
                "node", "= \"10.0.0.1:8080\", ephemeral, owned by session 0x",
                "delete", "an operator deletes",
                "event", "NodeDeleted",
                "event", "NodeCreated",
                "set", "the service moves to port 8081",
                "event", "NodeDataChanged",
                "expire", "the service's session expires",
                "event", "NodeDeleted",
                "state", "LOST",
                "event", "NodeCreated",
                "data", "= \"10.0.0.1:8081\", under a new session",
                "close", "the service closes the PersistentNode",
                "event", "NodeDeleted",
                "check", "host-1 exists: false");
    }

    @Test
    void groupMember() {
        Cli.Result result = demo("group-member");
        result.assertStory(
                "dashbd", "joined  alice = \"10.0.0.1:8080\"   members now: [alice]",
                "dashbd", "joined  bob",
                "dashbd", "joined  carol = \"10.0.0.3:8080\"   members now: [alice, bob, carol]",
                "dashbd", "changed bob   = \"10.0.0.2:9090\"",
                "members", "bob=10.0.0.2:9090",
                "expire", "carol's session expires",
                "dashbd", "left    carol",
                "dashbd", "joined  carol",
                "dashbd", "left    alice",
                "group", "what `baton inspect /demo-group` shows now");
        assertThat(result.out()).contains("[group: 2 members (bob, carol)]");
    }

    @Test
    void persistentWatcher() {
        Cli.Result result = demo("persistent-watcher");
        result.assertStory(
                "tree", "watch on /demo-watcher registered (recursive)",
                "edit", "create /demo-watcher/config = \"v1\"",
                "tree", "NodeCreated         /demo-watcher/config",
                "edit", "create /demo-watcher/config/flags",
                "edit", "set /demo-watcher/config = \"v2\"",
                "edit", "delete /demo-watcher/config/flags",
                "expire", "the watching client's session expires",
                "state", "LOST",
                "tree", "watch on /demo-watcher registered",
                "read", "re-read after the reset: /demo-watcher/config = \"v2\"",
                "edit", "set /demo-watcher/config = \"v3\"",
                "watch", "closing the watchers");
        assertThat(result.out()).contains("node    NodeChildrenChanged /demo-watcher/config")
                .doesNotContain("node    NodeCreated         /demo-watcher/config/flags");
        assertThat(result.outLines()).filteredOn(l -> l.contains("NodeDataChanged")).hasSize(4);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lock", "semaphore", "cache", "double-barrier"})
    void theEarlierDemosLeaveNothingBehindEither(String name) {
        demo(name); // their stories are checked in LockDemosTest, CacheDemoTest and DemoCommandTest
    }

    @Test
    void everyDemoHasItsRecipeClassAsAnAlias() {
        for (String alias : List.of("InterProcessReadWriteLock", "InterProcessSemaphoreMutex",
                "InterProcessMultiLock", "DistributedBarrier", "SharedCount", "DistributedAtomicInteger",
                "PersistentNode", "GroupMember", "PersistentWatcher", "rwlock")) {
            assertThat(Demos.find(alias)).as(alias).isPresent();
        }
        // Case and punctuation do not matter.
        assertThat(Demos.find("READ_WRITE_LOCK")).containsSame(Demos.find("read-write-lock").orElseThrow());
        assertThat(Demos.find("distributed-atomic-long")).containsSame(Demos.find("atomic").orElseThrow());
        assertThat(Demos.find("leaderlatch")).containsSame(Demos.find("leader-latch").orElseThrow());
        assertThat(Demos.find("no-such-demo")).isEmpty();
    }

    private static Cli.Result demo(String name) {
        Cli.Result result = Cli.baton("demo", name, "--connect", zk.connectString(), "--speed", "50");
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.err()).as(result.toString()).isEmpty();
        assertThat(result.outLines().get(0)).startsWith("baton demo " + name + ": ");
        assertThat(result.outLines().get(result.outLines().size() - 1)).contains("done    in ");
        return result;
    }
}
