package dev.baton.recipes.docs;

// README.md begin counters
import dev.baton.recipes.atomic.AtomicValue;
import dev.baton.recipes.atomic.DistributedAtomicLong;
import dev.baton.recipes.atomic.PromotedToLock;
import dev.baton.recipes.shared.SharedCount;
import dev.baton.recipes.shared.SharedCountListener;
import dev.baton.recipes.shared.SharedCountReader;
import dev.baton.recipes.shared.VersionedValue;

// README.md end counters
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README.md's counter examples, line for line (checked by {@link DocsMirrorTest}), run against an embedded server:
 * the shared count moves from its seed as shown, and each increment is reported with its before and after.
 */
@Timeout(120)
class ReadmeCountersTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    /** The client the example uses. */
    private BatonClient client;

    @BeforeEach
    void startClient() throws InterruptedException {
        client = resources.client();
    }

    @Test
    void theCountMovesAndTheIncrementsAreReported() throws Exception {
        try (StdOut out = StdOut.capture()) {
            // README.md begin counters
            try (SharedCount target = new SharedCount(client, "/app/workers/target", 3)) {
                target.addListener(new SharedCountListener() {      // two methods: the value, and the connection
                    public void countHasChanged(SharedCountReader reader, int newCount) {
                        System.out.println("target is now " + newCount);
                    }
                    public void stateChanged(BatonClient c, ConnectionState newState) {
                        System.out.println("connection " + newState);    // SUSPENDED / LOST: the value may be stale
                    }
                });
                target.start();                                      // seeds 3 if the node is missing
                VersionedValue<Integer> seen = target.getVersionedValue();
                boolean mine = target.trySetCount(seen, seen.value() + 1);   // false if someone changed it first
                target.setCountAsync(5).thenRun(() -> System.out.println("set"));  // also startAsync(), trySetCountAsync
            }

            DistributedAtomicLong hits = new DistributedAtomicLong(client, "/stats/hits", new ExponentialBackoffRetry(10, 5),
                    PromotedToLock.builder().lockPath("/stats/hits-lock").timeout(2, TimeUnit.SECONDS).build());
            AtomicValue<Long> result = hits.increment();             // also add, subtract, decrement, compareAndSet,
            if (result.succeeded()) {                                // trySet, forceSet, initialize, get
                System.out.println(result.preValue() + " -> " + result.postValue());
            }

            // Every operation also has an ...Async form that holds no thread: retry pauses are scheduled, not slept.
            hits.incrementAsync().thenAccept(r -> System.out.println(r.preValue() + " -> " + r.postValue()));
            // README.md end counters
            assertThat(result.succeeded()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> out.lines().containsAll(java.util.List.of("set", "1 -> 2")));
            assertThat(out.lines()).contains("0 -> 1");   // (the listener may be cleared by close() before it hears 4)
            assertThat(ByteBuffer.wrap(client.getData().forPath("/app/workers/target")).getInt()).isEqualTo(5);
            assertThat(hits.get().postValue()).isEqualTo(2L);
        }
    }
}
