package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A ZooKeeper client in its own JVM, driven over stdin/stdout: paused with SIGSTOP past its session timeout,
 * resumed with SIGCONT, its session expired on demand, killed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@Tag("slow")
class DriverProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).build();

    @Test
    void sigstopSilencesTheDriverPastItsSessionTimeoutAndSigcontBringsItBackToFindItsSessionExpired()
            throws Exception {
        DriverProcess driver = zk.startDriver(DriverProcess.builder(ZooKeeperClientDriver.class));
        connect(driver, 3_000);
        driver.call("create-ephemeral", "/paused-holder");
        try (WatchedClient observer = new WatchedClient(zk.connectString(), Duration.ofSeconds(20))) {
            assertThat(observer.zk().exists("/paused-holder", false)).isNotNull();

            driver.pause();

            assertThat(driver.isPaused()).isTrue();
            assertThatThrownBy(() -> driver.call(Duration.ofSeconds(1), "ping"))
                    .isInstanceOfSatisfying(DriverException.class,
                            e -> assertThat(e.reason()).isEqualTo(DriverException.Reason.TIMEOUT));
            // Paused past its session timeout: the servers expire the session and delete its ephemeral node,
            // while the paused client still believes it holds it.
            await().atMost(WAIT).until(() -> observer.zk().exists("/paused-holder", false) == null);
            assertThat(driver.events()).doesNotContain("state Expired");

            driver.resume();

            assertThat(driver.call("ping")).isEqualTo("pong"); // the late answer to the first ping is skipped
            driver.awaitEvent("state Expired"::equals, WAIT);
            assertThat(driver.call("state")).isEqualTo("Expired");
            assertThat(driver.events()).containsSubsequence("state SyncConnected", "state Expired");
        }
    }

    @Test
    void ensembleExpiresTheSessionOfAnOutOfProcessClientFromItsReportedIdAndPassword() throws Exception {
        DriverProcess driver = zk.startDriver(DriverProcess.builder(ZooKeeperClientDriver.class));
        connect(driver, 30_000);
        driver.call("create-ephemeral", "/remote-ephemeral");
        String[] session = driver.call("session").split(" ");
        long id = Long.parseUnsignedLong(session[0], 16);
        byte[] password = HexFormat.of().parseHex(session[1]);

        zk.ensemble().expireSession(id, password);

        try (WatchedClient observer = new WatchedClient(zk.connectString(), Duration.ofSeconds(20))) {
            await().atMost(WAIT).until(() -> observer.zk().exists("/remote-ephemeral", false) == null);
        }
        driver.awaitEvent("state Expired"::equals, WAIT);
    }

    @Test
    void errorsUnknownCommandsAndADeadDriverAreReportedAsSuch() throws Exception {
        DriverProcess driver = zk.startDriver(DriverProcess.builder(ZooKeeperClientDriver.class));
        assertThat(driver.call("pid")).isEqualTo(Long.toString(driver.pid()));
        assertThat(KitResources.liveProcesses()).anyMatch(p -> p.pid() == driver.pid());
        assertThatThrownBy(() -> driver.call("exists", "/x"))
                .isInstanceOfSatisfying(DriverException.class, e -> {
                    assertThat(e.reason()).isEqualTo(DriverException.Reason.ERROR_REPLY);
                    assertThat(e).hasMessageContaining("not connected");
                });
        assertThatThrownBy(() -> driver.call("no-such-command"))
                .isInstanceOfSatisfying(DriverException.class,
                        e -> assertThat(e.reason()).isEqualTo(DriverException.Reason.ERROR_REPLY));
        assertThatThrownBy(() -> driver.call("exists", "two words"))
                .isInstanceOf(IllegalArgumentException.class);

        driver.kill();

        assertThat(driver.isAlive()).isFalse();
        assertThatThrownBy(() -> driver.call("ping"))
                .isInstanceOfSatisfying(DriverException.class,
                        e -> assertThat(e.reason()).isEqualTo(DriverException.Reason.EXITED));
        assertThat(KitResources.liveProcesses()).noneMatch(p -> p.pid() == driver.pid());
    }

    @Test
    void pausedServerAnswersNothingAndResumesWithItsRole() {
        ZooKeeperEnsemble ensemble = zk.ensemble();
        int follower = ensemble.serverIds().stream().filter(id -> id != ensemble.leaderId()).findFirst()
                .orElseThrow();

        ensemble.pause(follower);

        assertThat(ensemble.fourLetterWord(follower, "ruok")).isEmpty();
        assertThat(ensemble.isRunning(follower)).isTrue();

        ensemble.resume(follower);

        await().atMost(WAIT).until(() -> ensemble.isServing(follower));
    }

    private static void connect(DriverProcess driver, int sessionTimeoutMs) throws InterruptedException {
        driver.call("connect", zk.connectString(), Integer.toString(sessionTimeoutMs));
        driver.call(WAIT.plusSeconds(5), "await-state", "SyncConnected", Long.toString(WAIT.toMillis()));
    }
}
