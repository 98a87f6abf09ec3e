package dev.baton.recipes.barriers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A double barrier of 4 with 2 Baton and 2 Apache Curator members, whoever arrives first. */
@Timeout(60)
class DistributedDoubleBarrierInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    /** One member: which library, and its enter and leave. */
    private record Member(String name, Callable<Boolean> enter, Callable<Boolean> leave) {
    }

    @Test
    void mixedMembersEnterAndLeaveTogetherWhoeverComesFirst() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            CuratorFramework c1 = resources.curator();
            CuratorFramework c2 = resources.curator();
            BatonClient b1 = resources.client();
            BatonClient b2 = resources.client();
            for (int round = 0; round < 4; round++) {
                String path = "/interop/barrier-" + round;
                List<Member> members = new ArrayList<>();
                for (BatonClient b : List.of(b1, b2)) {
                    DistributedDoubleBarrier ours = new DistributedDoubleBarrier(b, path, 4);
                    members.add(new Member("baton", () -> ours.enter(20, TimeUnit.SECONDS),
                            () -> ours.leave(20, TimeUnit.SECONDS)));
                }
                for (CuratorFramework c : List.of(c1, c2)) {
                    org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier theirs =
                            new org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier(c, path, 4);
                    members.add(new Member("curator", () -> theirs.enter(20, TimeUnit.SECONDS),
                            () -> theirs.leave(20, TimeUnit.SECONDS)));
                }
                if (round % 2 == 1) {
                    java.util.Collections.reverse(members); // Curator members first
                }
                if (round >= 2) {
                    java.util.Collections.swap(members, 1, 2); // interleaved
                }
                runRound(pool, members, path, b1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void runRound(ExecutorService pool, List<Member> members, String path, BatonClient observer)
            throws Exception {
        long[] enterCalled = new long[4];
        long[] enterReturned = new long[4];
        long[] leaveCalled = new long[4];
        long[] leaveReturned = new long[4];
        List<Future<Boolean>> entering = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int m = i;
            entering.add(pool.submit(() -> {
                enterCalled[m] = System.nanoTime();
                boolean ok = members.get(m).enter().call();
                enterReturned[m] = System.nanoTime();
                return ok;
            }));
            if (m < 3) {
                // The first three are waiting before the fourth arrives.
                org.awaitility.Awaitility.await().until(() -> members(observer, path) == m + 1);
                assertThat(entering.get(0).isDone()).isFalse();
            }
        }
        for (Future<Boolean> f : entering) {
            assertThat(f.get(20, TimeUnit.SECONDS)).as(members.toString()).isTrue();
        }
        assertThat(observer.checkExists().forPath(path + "/ready")).isNotNull();
        List<Future<Boolean>> leaving = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int m = i;
            leaving.add(pool.submit(() -> {
                leaveCalled[m] = System.nanoTime();
                boolean ok = members.get(m).leave().call();
                leaveReturned[m] = System.nanoTime();
                return ok;
            }));
        }
        for (Future<Boolean> f : leaving) {
            assertThat(f.get(20, TimeUnit.SECONDS)).isTrue();
        }
        long lastEnter = max(enterCalled);
        long lastLeave = max(leaveCalled);
        for (int i = 0; i < 4; i++) {
            assertThat(enterReturned[i]).isGreaterThanOrEqualTo(lastEnter);
            assertThat(leaveReturned[i]).isGreaterThanOrEqualTo(lastLeave);
        }
        // Curator's members delete ready after their own node; give them the moment they need.
        org.awaitility.Awaitility.await().until(() -> children(observer, path).isEmpty());
    }

    private static long max(long[] values) {
        long max = Long.MIN_VALUE;
        for (long v : values) {
            max = Math.max(max, v);
        }
        return max;
    }

    private static int members(BatonClient client, String path) throws Exception {
        return (int) children(client, path).stream().filter(n -> !n.equals("ready")).count();
    }

    private static List<String> children(BatonClient client, String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
