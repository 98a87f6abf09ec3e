package dev.baton.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.locks.InterProcessMutex;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worked port in MIGRATING.md: the Baton block there is this class's {@link ReportJob} and the Curator block
 * is {@link dev.baton.recipes.migrating.ReportJob} (both checked line for line by
 * {@link dev.baton.recipes.docs.DocsMirrorTest}), and both run.
 */
@Timeout(60)
class MigratingExampleTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    // MIGRATING.md begin report-job
    public static class ReportJob {
        public static void main(String[] args) throws KeeperException, InterruptedException {
            try (BatonClient client = Baton.newClient(args[0], new ExponentialBackoffRetry(1000, 3))) {
                client.start();
                if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("ZooKeeper is not reachable at " + args[0]);
                }
                try (LeaderLatch latch = new LeaderLatch(client, "/reports/leader", args[1])) {
                    latch.start();
                    latch.await();
                    InterProcessMutex lock = new InterProcessMutex(client, "/reports/lock");
                    if (lock.acquire(5, TimeUnit.SECONDS)) {
                        try {
                            System.out.println("report by " + latch.getLeader().getId()
                                    + ", fencing token " + lock.fencingToken().getAsLong());
                        } finally {
                            lock.release();
                        }
                    }
                }
            }
        }
    }
    // MIGRATING.md end report-job

    @Test
    void theReportJobRunsAndReportsAsTheLeaderUnderTheLock() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            ReportJob.main(new String[] {zk.connectString(), "host-1"});
        } finally {
            System.setOut(out);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).startsWith("report by host-1, fencing token ");
        try (BatonClient client = Baton.newClient(zk.connectString(), new ExponentialBackoffRetry(10, 3))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(children(client, "/reports/leader")).isEmpty(); // the latch left
            assertThat(children(client, "/reports/lock")).isEmpty();   // the lock was released
        }
    }

    @Test
    void theCuratorJobRunsAndReportsAsTheLeaderUnderTheLock() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            dev.baton.recipes.migrating.ReportJob.main(new String[] {zk.connectString(), "host-2"});
        } finally {
            System.setOut(out);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).startsWith("report by host-2");
        try (BatonClient client = Baton.newClient(zk.connectString(), new ExponentialBackoffRetry(10, 3))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(children(client, "/reports/leader")).isEmpty();
            assertThat(children(client, "/reports/lock")).isEmpty();
        }
    }

    /** A parent's children; none once the server removed the empty container. */
    private static List<String> children(BatonClient client, String path) throws Exception {
        return client.checkExists().forPath(path) == null ? List.of() : client.getChildren().forPath(path);
    }
}
