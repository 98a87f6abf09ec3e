package dev.baton.recipes.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A Baton and an Apache Curator SharedCount on one path read and update each other's values. */
@Timeout(60)
class SharedCountInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void batonAndCuratorShareOneCount() throws Exception {
        try (BatonClient baton = Baton.newClient(zk.connectString(), new RetryOneTime(10));
                CuratorFramework curator = CuratorFrameworkFactory.newClient(zk.connectString(),
                        new org.apache.curator.retry.RetryOneTime(10))) {
            baton.start();
            curator.start();
            assertThat(baton.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();

            org.apache.curator.framework.recipes.shared.SharedCount theirs =
                    new org.apache.curator.framework.recipes.shared.SharedCount(curator, "/interop/count", 41);
            theirs.start();
            try (SharedCount ours = new SharedCount(baton, "/interop/count", 0)) {
                ours.start();
                assertThat(ours.getCount()).isEqualTo(41); // seeded by Curator

                assertThat(ours.trySetCount(ours.getVersionedValue(), 42)).isTrue();
                await().until(() -> theirs.getCount() == 42);
                org.apache.curator.framework.recipes.shared.VersionedValue<Integer> v = theirs.getVersionedValue();
                assertThat(v.getVersion()).isEqualTo(ours.getVersionedValue().version());

                assertThat(theirs.trySetCount(v, 43)).isTrue();
                await().until(() -> ours.getCount() == 43);
                theirs.setCount(-7);
                await().until(() -> ours.getCount() == -7);
                ours.setCount(100);
                await().until(() -> theirs.getCount() == 100);
            } finally {
                theirs.close();
            }
        }
    }
}
