package dev.baton.micrometer;

// README.md begin metrics
import dev.baton.micrometer.BatonMetrics;

// README.md end metrics
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.locks.InterProcessLock;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.retry.RetryNTimes;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README.md's metrics example, line for line (checked by {@code DocsMirrorTest} in baton-recipes), run against an
 * embedded server: while the invoices are sent, the lock is held and metered, the latch's leadership shows, and
 * every meter leaves the registry on close.
 */
@Timeout(120)
class ReadmeMetricsTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** What the example uses: a client, a registry and a leading latch. */
    private BatonClient client;
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private LeaderLatch latch;
    private double leading;
    private int holding;
    private long acquired;

    @BeforeEach
    void start() throws Exception {
        client = Baton.newClient(zk.connectString(), new RetryNTimes(3, 10));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        latch = new LeaderLatch(client, "/services/billing/leader", "host-1");
        latch.start();
        assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void close() {
        latch.close();
        client.close();
    }

    void sendTheInvoices() {
        leading = registry.get("baton.leader").tags("service", "billing", "path", "/services/billing/leader")
                .gauge().value();
        holding = registry.get("baton.lock.held").tags("service", "billing", "path", "/locks/invoices")
                .longTaskTimer().activeTasks();
        acquired = registry.get("baton.lock.acquire")
                .tags("service", "billing", "path", "/locks/invoices", "result", "acquired").timer().count();
    }

    @Test
    void theLockAndTheLeadershipAreMeteredUntilClose() throws Exception {
        // README.md begin metrics
        try (BatonMetrics metrics = BatonMetrics.monitor(client, registry, Tags.of("service", "billing"))) {
            InterProcessLock lock = metrics.lock(new InterProcessMutex(client, "/locks/invoices"));   // metered lock
            metrics.leader(latch);                                  // baton.leader gauge of the latch's path
            lock.acquire();                                         // baton.lock.acquire, then baton.lock.held
            try {
                sendTheInvoices();
            } finally {
                lock.release();
            }
        }                                                           // close(): every meter leaves the registry
        // README.md end metrics
        assertThat(leading).isEqualTo(1.0);
        assertThat(holding).isEqualTo(1);
        assertThat(acquired).isEqualTo(1);
        assertThat(registry.getMeters()).isEmpty();
    }
}
