package dev.baton.recipes.nodes;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** PersistentNode's creation listener and waitForInitialCreateAsync. */
@Timeout(60)
class PersistentNodeAsyncTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void listenersHearEveryCreationAndTheAsyncWaitCompletes() throws Exception {
        BatonClient client = resources.client();
        PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL_SEQUENTIAL, true, "/pn/async/member-",
                "x".getBytes(UTF_8));
        resources.open(node);
        List<String> created = new CopyOnWriteArrayList<>();
        node.getListenable().addListener(created::add);
        assertThatThrownBy(node::waitForInitialCreateAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT");
        node.start();
        node.waitForInitialCreateAsync().get(10, TimeUnit.SECONDS);
        assertThat(node.waitForInitialCreateAsync()).isCompleted();
        await().until(() -> created.size() == 1);
        String first = node.getActualPath();
        assertThat(created).containsExactly(first);

        resources.client().delete().forPath(first);
        await().until(() -> created.size() == 2);
        assertThat(created.get(1)).isNotEqualTo(first).isEqualTo(node.getActualPath());
        node.close();
        assertThat(node.getListenable()).isNotNull();
        assertThatThrownBy(node::waitForInitialCreateAsync).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
    }

    @Test
    void aPendingWaitFailsOnCloseAndACancelledOneIsForgotten() throws Exception {
        BatonClient client = resources.client();
        zk.server().stop(); // the create cannot happen while the server is down
        await().until(() -> !client.isConnected());
        PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL, false, "/pn/async/waiting",
                new byte[0]);
        resources.open(node);
        node.start();
        CompletableFuture<Void> cancelled = node.waitForInitialCreateAsync();
        CompletableFuture<Void> pending = node.waitForInitialCreateAsync();
        assertThat(node.waitingCount()).isEqualTo(2);
        cancelled.cancel(false);
        assertThat(node.waitingCount()).isEqualTo(1);
        node.close();
        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(node.waitingCount()).isZero();
        zk.server().restart();
        await().atMost(Duration.ofSeconds(20)).until(client::isConnected);
        // Closed while disconnected, the node does not wait for its create: the create goes out on reconnecting,
        // and its reply has the node deleted in the background. Gone, then, and gone for good.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(20))
                .until(() -> client.checkExists().forPath("/pn/async/waiting") == null);
    }
}
