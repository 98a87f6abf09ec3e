package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SmokeTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void createReadDelete() throws Exception {
        try (BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().creatingParentsIfNeeded().forPath("/a/b", "hi".getBytes(StandardCharsets.UTF_8));
            assertThat(new String(client.getData().forPath("/a/b"), StandardCharsets.UTF_8)).isEqualTo("hi");
            String p = client.create().withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPathAsync("/a/n-").get();
            assertThat(p).startsWith("/a/_c_").contains("-n-");
            client.delete().deletingChildrenIfNeeded().forPath("/a");
            assertThat(client.checkExists().forPath("/a")).isNull();
        }
    }
}
