package dev.baton.recipes.atomic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.retry.RetryNTimes;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Baton and Apache Curator atomic counters on one path read and update each other's values. */
@Timeout(60)
class DistributedAtomicInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void batonAndCuratorShareOneCounter() throws Exception {
        BatonClient baton = resources.client();
        CuratorFramework curator = resources.curator();
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
