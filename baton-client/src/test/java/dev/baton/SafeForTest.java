package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
class SafeForTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void safeForIsBoundedBySessionTimeoutAndRunsOutWhenTheServerIsGone() throws Exception {
        try (BatonClient client = Baton.builder().connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(4)).retryPolicy(new RetryOneTime(10)).build()) {
            assertThat(client.safeFor()).isZero();
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(LastContact.lastHeardMillis(client.getZooKeeper()))
                    .as("the handle's last-heard time is readable").isPositive();
            Duration negotiated = client.getSessionTimeout();
            assertThat(client.safeFor()).isPositive().isLessThan(negotiated);

            zk.server().stop();
            await().until(() -> !client.isConnected());
            Duration first = client.safeFor();
            await().atMost(Duration.ofSeconds(20)).until(() -> client.safeFor().isZero());
            assertThat(first).isLessThan(negotiated);
        } finally {
            zk.ensureRunning();
        }
    }

    /**
     * Without simulated expiration the client stays SUSPENDED while the server is down, and the handle keeps
     * trying to reconnect, resetting its own last-heard time at each try: safeFor must still run out.
     */
    @Test
    void safeForRunsOutWhileSuspendedEvenAsReconnectionAttemptsGoOn() throws Exception {
        try (BatonClient client = Baton.builder().connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(3)).simulatedSessionExpirationPercent(0)
                .retryPolicy(new RetryOneTime(10)).build()) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            zk.server().stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> client.safeFor().isZero());
            // Reconnection attempts keep failing for a while; safeFor must not come back while suspended.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < until) {
                assertThat(client.isConnected()).isFalse();
                assertThat(client.safeFor()).isZero();
                Thread.onSpinWait();
            }
        } finally {
            zk.ensureRunning();
        }
    }
}
