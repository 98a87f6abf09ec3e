package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.locks.Hold;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code baton inspect --watch}: a new view at every change, driven by the server's watch. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InspectWatchTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void showsAHandOverAsItHappens() throws Exception {
        try (BatonClient alice = connect(); BatonClient bob = connect()) {
            Hold aliceHolds = new InterProcessMutex(alice, "/locks/report", "alice".getBytes(UTF_8)).acquireAsync()
                    .get(10, TimeUnit.SECONDS);
            CompletableFuture<Hold> bobWaits = new InterProcessMutex(bob, "/locks/report", "bob".getBytes(UTF_8))
                    .acquireAsync();
            await().atMost(10, TimeUnit.SECONDS).until(() -> alice.getChildren().forPath("/locks/report").size() == 2);

            Cli.Running watch = Cli.start("inspect", "/locks/report", "--watch", "--connect", zk.connectString());
            await().atMost(10, TimeUnit.SECONDS).until(() -> watch.out().contains("1 waiting"));
            String before = watch.out();
            assertThat(before).startsWith("--- ").contains("\"alice\" holds it (leads), 1 waiting");

            // Nothing changes, nothing is sent: the view waits for the watch, it does not poll.
            long requests = zk.server().requestCount();
            await().during(Duration.ofMillis(700)).atMost(5, TimeUnit.SECONDS)
                    .until(() -> zk.server().requestCount() == requests && watch.out().equals(before));

            aliceHolds.release();
            Hold bobHolds = bobWaits.get(10, TimeUnit.SECONDS);
            await().atMost(10, TimeUnit.SECONDS).until(() -> watch.out().contains("\"bob\" holds it (leads), 0 waiting"));
            bobHolds.release();
            await().atMost(10, TimeUnit.SECONDS).until(() -> watch.out().contains("/locks/report  (empty)\n")
                    || watch.out().contains("/locks/report  (empty)" + System.lineSeparator()));

            Cli.Result result = watch.stop();
            assertThat(result.exitCode()).as(result.toString()).isZero();
            List<String> frames = frames(result.out());
            // The lock's parent is a container: the server may reap it, empty, before the watch stops.
            if (frames.size() == 4) {
                assertThat(frames.get(3)).as(result.out()).contains("/locks/report  (no such node yet)");
                frames = frames.subList(0, 3);
            }
            assertThat(frames).as(result.out()).hasSize(3);
            assertThat(frames.get(0)).contains("_c_", "\"alice\"", "[#1 holder (leader)]", "\"bob\"", "[#2 waiting]");
            assertThat(frames.get(1)).contains("\"bob\"", "[#1 holder (leader)]").doesNotContain("\"alice\"");
            assertThat(frames.get(2)).doesNotContain("lock-");
        }
    }

    @Test
    void watchesANodeThatDoesNotExistYetAsJsonLines() throws Exception {
        try (BatonClient client = connect()) {
            Cli.Running watch = Cli.start("inspect", "/later", "--watch", "--json", "--connect", zk.connectString());
            await().atMost(10, TimeUnit.SECONDS).until(() -> watch.out().contains("\"exists\":false"));
            client.create().forPath("/later", new byte[] {0, 0, 0, 5});
            await().atMost(10, TimeUnit.SECONDS).until(() -> watch.out().contains("\"counter\":5"));
            client.delete().forPath("/later");
            await().atMost(10, TimeUnit.SECONDS).until(() -> watch.out().lines().count() == 3);

            Cli.Result result = watch.stop();
            assertThat(result.exitCode()).isZero();
            ObjectMapper json = new ObjectMapper();
            List<JsonNode> documents = new ArrayList<>();
            for (String line : result.out().lines().toList()) {
                documents.add(json.readTree(line));
            }
            assertThat(documents).extracting(d -> d.get("exists").asBoolean()).containsExactly(false, true, false);
            assertThat(documents.get(1).get("counter").asInt()).isEqualTo(5);
            assertThat(documents.get(1).get("connection").asText()).isEqualTo("CONNECTED");
        }
    }

    /** The views printed, each without its header line. */
    private static List<String> frames(String out) {
        List<String> frames = new ArrayList<>();
        for (String frame : out.split("(?m)^--- .*\\R")) {
            if (!frame.isEmpty()) {
                frames.add(frame);
            }
        }
        return frames;
    }

    private static BatonClient connect() throws InterruptedException {
        BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }
}
