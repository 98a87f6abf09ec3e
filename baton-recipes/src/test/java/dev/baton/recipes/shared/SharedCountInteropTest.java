package dev.baton.recipes.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A Baton and an Apache Curator SharedCount on one path read and update each other's values. */
@Timeout(60)
class SharedCountInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void batonAndCuratorShareOneCount() throws Exception {
        BatonClient baton = resources.client();
        CuratorFramework curator = resources.curator();

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
