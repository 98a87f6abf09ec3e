package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("slow")
class SessionExpirerTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void expireRemovesTheVictimsEphemeralsAndTheVictimSeesExpired() throws Exception {
        try (TestClient victim = new TestClient(zk.connectString());
             TestClient observer = new TestClient(zk.connectString())) {
            victim.zk().create("/lease", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            long sessionId = victim.zk().getSessionId();

            SessionExpirer.expire(zk.connectString(), victim.zk(), Duration.ofSeconds(20));

            assertThat(zk.server().liveSessions()).doesNotContain(sessionId);
            assertThat(observer.zk().exists("/lease", false)).isNull();
            victim.awaitState(KeeperState.Expired);
            assertThat(victim.states()).containsSubsequence(KeeperState.Disconnected, KeeperState.Expired);
            assertThatThrownBy(() -> victim.zk().exists("/lease", false))
                    .isInstanceOf(KeeperException.SessionExpiredException.class);
            // The observer's own session is untouched.
            assertThat(observer.states()).doesNotContain(KeeperState.Expired, KeeperState.Disconnected);
        }
    }

    @Test
    void expireByIdAndPasswordWorksWithoutTheHandle() throws Exception {
        try (TestClient victim = new TestClient(zk.connectString());
             TestClient observer = new TestClient(zk.connectString())) {
            victim.zk().create("/by-id", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

            SessionExpirer.expire(zk.connectString(), victim.zk().getSessionId(),
                    victim.zk().getSessionPasswd(), Duration.ofSeconds(20));

            assertThat(observer.zk().exists("/by-id", false)).isNull();
            victim.awaitState(KeeperState.Expired);
        }
    }

    @Test
    void embeddedServerExpireSessionDelegatesAndWaitsForTheEphemeralsToGo() throws Exception {
        try (TestClient victim = new TestClient(zk.connectString());
             TestClient observer = new TestClient(zk.connectString())) {
            victim.zk().create("/a", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            victim.zk().create("/b", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
            long sessionId = victim.zk().getSessionId();

            zk.server().expireSession(victim.zk());

            assertThat(zk.server().liveSessions()).doesNotContain(sessionId);
            assertThat(observer.zk().getChildren("/", false)).doesNotContain("a").noneMatch(c -> c.startsWith("b"));
            victim.awaitState(KeeperState.Expired);
        }
    }

    @Test
    void expiringAnAlreadyExpiredSessionReturnsAtOnce() throws Exception {
        try (TestClient victim = new TestClient(zk.connectString())) {
            long sessionId = victim.zk().getSessionId();
            byte[] password = victim.zk().getSessionPasswd();
            SessionExpirer.expire(zk.connectString(), sessionId, password, Duration.ofSeconds(20));
            victim.awaitState(KeeperState.Expired);

            SessionExpirer.expire(zk.connectString(), sessionId, password, Duration.ofSeconds(20));

            assertThat(zk.server().liveSessions()).doesNotContain(sessionId);
        }
    }

    @Test
    void expiryIsReliableOverManyRounds() throws Exception {
        // Each expiry races the victim's reconnect against the helper's close; every one must end the session.
        List<TestClient> victims = new ArrayList<>();
        try (TestClient observer = new TestClient(zk.connectString())) {
            for (int i = 0; i < 8; i++) {
                TestClient victim = new TestClient(zk.connectString());
                victims.add(victim);
                victim.zk().create("/round-" + i, null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            }
            for (TestClient victim : victims) {
                zk.server().expireSession(victim.zk());
                assertThat(zk.server().liveSessions()).doesNotContain(victim.zk().getSessionId());
            }
            assertThat(observer.zk().getChildren("/", false)).noneMatch(c -> c.startsWith("round-"));
            victims.forEach(v -> v.awaitState(KeeperState.Expired));
        } finally {
            victims.forEach(TestClient::close);
        }
    }

    @Test
    void timesOutWhenTheServerIsDown() throws Exception {
        try (TestClient victim = new TestClient(zk.connectString())) {
            zk.server().stop();

            assertThatThrownBy(() -> SessionExpirer.expire(zk.connectString(), victim.zk(), Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasCauseInstanceOf(TimeoutException.class);
            assertThatThrownBy(() -> zk.server().expireSession(victim.zk()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not running");
        }
        // The extension restarts the server after this test.
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> SessionExpirer.expire(zk.connectString(), 0L, new byte[16], Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SessionExpirer.expire(zk.connectString(), 1L, new byte[16], Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SessionExpirer.expire(null, 1L, new byte[16], Duration.ofSeconds(1)))
                .isInstanceOf(NullPointerException.class).hasMessage("connectString");
    }

    @Test
    void serverIsRunningForEveryTest() {
        assertThat(zk.server().isRunning()).isTrue();
    }
}
