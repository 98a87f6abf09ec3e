package dev.baton.recipes.shared;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.Arrays;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A Baton and an Apache Curator SharedValue on one path read and update each other's values. */
@Timeout(60)
class SharedValueInteropTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    @Test
    void batonAndCuratorShareOneValue() throws Exception {
        BatonClient baton = resources.client();
        CuratorFramework curator = resources.curator();

        org.apache.curator.framework.recipes.shared.SharedValue theirs =
                new org.apache.curator.framework.recipes.shared.SharedValue(curator, "/interop/value",
                        "curator-seed".getBytes(UTF_8));
        theirs.start();
        try (SharedValue ours = new SharedValue(baton, "/interop/value", "baton-seed".getBytes(UTF_8))) {
            ours.start();
            assertThat(ours.getValue()).isEqualTo("curator-seed".getBytes(UTF_8));

            assertThat(ours.trySetValue(ours.getVersionedValue(), "from-baton".getBytes(UTF_8))).isTrue();
            await().until(() -> Arrays.equals(theirs.getValue(), "from-baton".getBytes(UTF_8)));
            org.apache.curator.framework.recipes.shared.VersionedValue<byte[]> v = theirs.getVersionedValue();
            assertThat(v.getVersion()).isEqualTo(ours.getVersionedValue().version());

            assertThat(theirs.trySetValue(v, "from-curator".getBytes(UTF_8))).isTrue();
            await().until(() -> Arrays.equals(ours.getValue(), "from-curator".getBytes(UTF_8)));
            // Each refuses a write based on a value the other has replaced.
            VersionedValue<byte[]> stale = ours.getVersionedValue();
            theirs.setValue("again".getBytes(UTF_8));
            assertThat(ours.trySetValue(stale, "lost".getBytes(UTF_8))).isFalse();
            await().until(() -> Arrays.equals(ours.getValue(), "again".getBytes(UTF_8)));
            org.apache.curator.framework.recipes.shared.VersionedValue<byte[]> theirStale =
                    theirs.getVersionedValue();
            ours.setValue(new byte[] {0, 1, 2});
            await().until(() -> Arrays.equals(theirs.getValue(), new byte[] {0, 1, 2}));
            assertThat(theirs.trySetValue(theirStale, "lost".getBytes(UTF_8))).isFalse();
        } finally {
            theirs.close();
        }
    }
}
