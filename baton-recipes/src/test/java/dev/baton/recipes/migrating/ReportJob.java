// The Curator job of MIGRATING.md's worked port, line for line; MigratingExampleTest runs it beside Baton's.
package dev.baton.recipes.migrating;

// MIGRATING.md begin curator-report-job
// Curator 5
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.CloseableUtils;

public class ReportJob {
    public static void main(String[] args) throws Exception {
        CuratorFramework client = CuratorFrameworkFactory.newClient(args[0], new ExponentialBackoffRetry(1000, 3));
        client.start();
        client.blockUntilConnected(10, TimeUnit.SECONDS);
        LeaderLatch latch = new LeaderLatch(client, "/reports/leader", args[1]);
        latch.start();
        try {
            latch.await();
            InterProcessMutex lock = new InterProcessMutex(client, "/reports/lock");
            if (lock.acquire(5, TimeUnit.SECONDS)) {
                try {
                    System.out.println("report by " + latch.getLeader().getId());
                } finally {
                    lock.release();
                }
            }
        } finally {
            latch.close();
            CloseableUtils.closeQuietly(client);
        }
    }
}
// MIGRATING.md end curator-report-job
