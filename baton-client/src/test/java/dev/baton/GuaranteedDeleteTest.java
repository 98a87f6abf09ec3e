package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
class GuaranteedDeleteTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static BatonClient client() {
        return Baton.builder()
                .connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(20))
                .connectionTimeout(Duration.ofMillis(500))
                .retryPolicy(new RetryOneTime(10))
                .build();
    }

    @Test
    void deleteIssuedWhileTheServerIsDownCompletesAfterRestart() throws Exception {
        try (BatonClient client = client(); BatonClient observer = client()) {
            client.start();
            observer.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().creatingParentsIfNeeded().forPath("/guaranteed/blocking/child");

            zk.server().stop();
            assertThatThrownBy(() -> client.delete().guaranteed().deletingChildrenIfNeeded()
                    .forPath("/guaranteed/blocking"))
                    .isInstanceOf(KeeperException.ConnectionLossException.class);
            zk.server().restart();

            assertThat(observer.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> observer.checkExists().forPath("/guaranteed/blocking") == null);
        } finally {
            zk.ensureRunning();
        }
    }

    @Test
    void backgroundAndFutureFormsAreGuaranteedToo() throws Exception {
        try (BatonClient client = client(); BatonClient observer = client()) {
            client.start();
            observer.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().creatingParentsIfNeeded().forPath("/guaranteed/async/a");
            client.create().creatingParentsIfNeeded().forPath("/guaranteed/async/b");

            zk.server().stop();
            CompletableFuture<BatonEvent> event = new CompletableFuture<>();
            client.delete().guaranteed().inBackground((c, e) -> event.complete(e)).forPath("/guaranteed/async/a");
            CompletableFuture<Void> future = client.delete().guaranteed().forPathAsync("/guaranteed/async/b");
            assertThat(event.get(30, TimeUnit.SECONDS).code()).isEqualTo(KeeperException.Code.CONNECTIONLOSS);
            assertThat(future).failsWithin(Duration.ofSeconds(30));
            zk.server().restart();

            assertThat(observer.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> observer.getChildren().forPath("/guaranteed/async").isEmpty());
        } finally {
            zk.ensureRunning();
        }
    }
}
