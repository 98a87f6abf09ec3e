package dev.baton.recipes.atomic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryNTimes;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Baton and Apache Curator atomic counters on one path read and update each other's values. */
@Timeout(60)
class DistributedAtomicInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void batonAndCuratorShareOneCounter() throws Exception {
        try (BatonClient baton = Baton.newClient(zk.connectString(), new RetryOneTime(10));
                CuratorFramework curator = CuratorFrameworkFactory.newClient(zk.connectString(),
                        new org.apache.curator.retry.RetryOneTime(10))) {
            baton.start();
            curator.start();
            assertThat(baton.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            org.apache.curator.framework.recipes.atomic.DistributedAtomicLong theirs =
                    new org.apache.curator.framework.recipes.atomic.DistributedAtomicLong(curator, "/interop/long",
                            new org.apache.curator.retry.RetryNTimes(5, 1));
            DistributedAtomicLong ours = new DistributedAtomicLong(baton, "/interop/long", new RetryNTimes(5, 1));

            assertThat(theirs.initialize(40L)).isTrue();
            assertThat(ours.get().postValue()).isEqualTo(40L);
            assertThat(ours.increment().postValue()).isEqualTo(41L);
            assertThat(theirs.get().postValue()).isEqualTo(41L);
            assertThat(theirs.add(9L).postValue()).isEqualTo(50L);
            assertThat(ours.compareAndSet(50L, -1L).succeeded()).isTrue();
            assertThat(theirs.get().postValue()).isEqualTo(-1L);
            assertThat(theirs.compareAndSet(-1L, 7L).succeeded()).isTrue();
            assertThat(ours.get().postValue()).isEqualTo(7L);

            org.apache.curator.framework.recipes.atomic.DistributedAtomicInteger theirInt =
                    new org.apache.curator.framework.recipes.atomic.DistributedAtomicInteger(curator, "/interop/int",
                            new org.apache.curator.retry.RetryNTimes(5, 1));
            DistributedAtomicInteger ourInt = new DistributedAtomicInteger(baton, "/interop/int",
                    new RetryNTimes(5, 1));
            assertThat(ourInt.add(5).succeeded()).isTrue();
            assertThat(theirInt.get().postValue()).isEqualTo(5);
            assertThat(theirInt.decrement().postValue()).isEqualTo(4);
            assertThat(ourInt.get().postValue()).isEqualTo(4);
        }
    }
}
