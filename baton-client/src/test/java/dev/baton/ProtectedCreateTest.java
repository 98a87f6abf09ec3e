package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryNTimes;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A connection dropped in the middle of a create: the server applied it, the client never heard. */
@Timeout(120)
@Tag("slow")
class ProtectedCreateTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static BatonClient client(int retries) {
        return Baton.builder()
                .connectString(zk.connectString())
                .sessionTimeout(Duration.ofSeconds(20))
                .connectionTimeout(Duration.ofSeconds(5))
                .retryPolicy(new RetryNTimes(retries, 50))
                .build();
    }

    @Test
    void protectedSequentialCreateLeavesExactlyOneNodeAcrossAConnectionLoss() throws Exception {
        for (boolean async : new boolean[] {false, true}) {
            String parent = "/protected-" + async;
            try (BatonClient client = client(5)) {
                client.start();
                assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
                client.create().forPath(parent);

                zk.server().dropConnectionOnNextCreate(parent + "/");
                var create = client.create().withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL);
                String path = async ? create.forPathAsync(parent + "/member-").get(30, TimeUnit.SECONDS)
                        : create.forPath(parent + "/member-");

                List<String> children = client.getChildren().forPath(parent);
                assertThat(children).hasSize(1);
                assertThat(path).isEqualTo(parent + "/" + children.get(0));
                assertThat(children.get(0)).matches("_c_[0-9a-f-]{36}-member-\\d{10}");
            }
        }
    }

    @Test
    void unprotectedSequentialCreateIsNotRetriedSoItCannotCreateTwice() throws Exception {
        try (BatonClient client = client(5)) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().forPath("/unprotected");

            zk.server().dropConnectionOnNextCreate("/unprotected/");
            assertThatThrownBy(() -> client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath("/unprotected/n-"))
                    .isInstanceOf(KeeperException.ConnectionLossException.class);
            assertThat(client.getChildren().forPath("/unprotected")).hasSize(1);
        }
    }

    @Test
    void aProtectedCreateThatFinallyFailsHasItsOrphanDeleted() throws Exception {
        try (BatonClient client = client(0)) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().forPath("/orphan");

            zk.server().dropConnectionOnNextCreate("/orphan/");
            assertThatThrownBy(() -> client.create().withProtection().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath("/orphan/n-"))
                    .isInstanceOf(KeeperException.ConnectionLossException.class);
            // The create did happen on the server; the client removes it in the background.
            await().atMost(Duration.ofSeconds(20)).until(() -> client.getChildren().forPath("/orphan").isEmpty());
        }
    }
}
