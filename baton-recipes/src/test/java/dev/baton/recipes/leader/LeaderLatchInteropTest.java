package dev.baton.recipes.leader;

import static dev.baton.recipes.TestResources.childCount;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Baton and Apache Curator latches on one path agree on one leader and hand over across libraries. */
@Timeout(120)
class LeaderLatchInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private BatonClient baton;
    private CuratorFramework curator;

    @BeforeEach
    void connect() throws InterruptedException {
        baton = resources.client();
        curator = resources.curator();
    }

    @Test
    void batonAndCuratorLatchesShareOneElection() throws Exception {
        LeaderLatch batonFirst = new LeaderLatch(baton, "/interop/latch", "baton-1");
        batonFirst.start();
        assertThat(batonFirst.await(10, TimeUnit.SECONDS)).isTrue();

        org.apache.curator.framework.recipes.leader.LeaderLatch curatorSecond =
                new org.apache.curator.framework.recipes.leader.LeaderLatch(curator, "/interop/latch", "curator-2");
        curatorSecond.start();
        await().until(() -> curatorSecond.getParticipants().size() == 2);
        assertThat(curatorSecond.hasLeadership()).isFalse();
        assertThat(curatorSecond.getLeader().getId()).isEqualTo("baton-1");
        assertThat(batonFirst.getParticipants()).extracting(Participant::id)
                .containsExactly("baton-1", "curator-2");

        LeaderLatch batonThird = new LeaderLatch(baton, "/interop/latch", "baton-3");
        batonThird.start();
        await().until(() -> batonThird.getParticipants().size() == 3);

        batonFirst.close();
        assertThat(curatorSecond.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(batonThird.hasLeadership()).isFalse();
        assertThat(batonThird.getLeader()).isEqualTo(new Participant("curator-2", true));

        curatorSecond.close();
        assertThat(batonThird.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(batonThird.getLeader().id()).isEqualTo("baton-3");
        batonThird.close();
        // Nothing left: the latch path is an empty container (which the server may already have removed).
        await().atMost(Duration.ofSeconds(10)).until(() -> childCount(baton, "/interop/latch") == 0);
    }

    @Test
    void aBatonLatchBehindCuratorLatchesLeadsOnItsTurnWithoutListing() throws Exception {
        String path = "/interop/latch-mixed";
        var curatorFirst = new org.apache.curator.framework.recipes.leader.LeaderLatch(curator, path, "curator-1");
        curatorFirst.start();
        assertThat(curatorFirst.await(10, TimeUnit.SECONDS)).isTrue();
        var curatorSecond = new org.apache.curator.framework.recipes.leader.LeaderLatch(curator, path, "curator-2");
        curatorSecond.start();
        await().until(() -> curatorSecond.getParticipants().size() == 2);
        LeaderLatch batonThird = new LeaderLatch(baton, path, "baton-3");
        batonThird.start();
        var curatorFourth = new org.apache.curator.framework.recipes.leader.LeaderLatch(curator, path, "curator-4");
        await().until(() -> batonThird.getOurPath() != null);
        curatorFourth.start();
        await().until(() -> batonThird.getParticipants().size() == 4);

        curatorFirst.close(); // Curator's second leads; Baton's third looks again and finds itself next
        assertThat(curatorSecond.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> zk.server().watchedPaths().contains(curatorSecond.getOurPath()));
        assertThat(batonThird.hasLeadership()).isFalse();

        zk.server().resetStatistics();
        curatorSecond.close();
        assertThat(batonThird.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(zk.server().requestCounts()).as("from Curator's close to Baton's leadership")
                .doesNotContainKey("getChildren").doesNotContainKey("getChildren2");
        assertThat(curatorFourth.hasLeadership()).isFalse();
        assertThat(curatorFourth.getLeader().getId()).isEqualTo("baton-3");

        batonThird.close();
        assertThat(curatorFourth.await(10, TimeUnit.SECONDS)).isTrue();
        curatorFourth.close();
    }
}
