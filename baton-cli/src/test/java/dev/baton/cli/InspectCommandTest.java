package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InspectCommandTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** Owns the hand-made ephemeral nodes while the tests inspect them. */
    private static BatonClient client;

    @BeforeAll
    static void connect() throws InterruptedException {
        client = Baton.newClient(zk.connectString(), new RetryOneTime(100));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterAll
    static void close() {
        client.close();
    }

    @Test
    void latchParticipantsAreShownInSequenceOrderWithTheFirstAsLeader() throws Exception {
        client.create().forPath("/election");
        // Created in this order, so the sequence order is alice, bob, carol, while the names sort the other way.
        createEphemeral("/election/_c_ffffffff-0000-4000-8000-000000000001-latch-", "alice");
        createEphemeral("/election/_c_88888888-0000-4000-8000-000000000002-latch-", "bob");
        createEphemeral("/election/_c_00000000-0000-4000-8000-000000000003-latch-", "carol");

        Cli.Result result = baton("inspect", "/election", "--connect", zk.connectString());

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<String> lines = result.outLines();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).startsWith("/election").endsWith("[leader latch: \"alice\" leads, 2 waiting]");
        String session = "ephemeral 0x" + Long.toHexString(client.getZooKeeper().getSessionId());
        assertThat(lines.get(1)).contains("_c_ffffffff-").contains("latch-0000000000").contains("\"alice\"").contains(session)
                .endsWith("[#1 leader]");
        assertThat(lines.get(2)).contains("latch-0000000001").contains("\"bob\"").endsWith("[#2 waiting]");
        assertThat(lines.get(3)).contains("latch-0000000002").contains("\"carol\"").endsWith("[#3 waiting]");
        // The server's version, beside the tree.
        assertThat(result.err()).contains(zk.connectString() + ", ZooKeeper "
                + EmbeddedZooKeeper.zooKeeperVersion());
        Cli.Result json = baton("inspect", "/election", "--json", "--connect", zk.connectString());
        assertThat(json.out()).contains("\"serverVersion\": \""
                + EmbeddedZooKeeper.zooKeeperVersion() + "\"");
    }

    @Test
    void lockHolderBinaryDataAndDepth() throws Exception {
        client.create().creatingParentsIfNeeded().forPath("/app/config/flags", new byte[] {0, 0, 0, 42});
        client.create().forPath("/app/locks");
        createEphemeral("/app/locks/_c_aaaaaaaa-0000-4000-8000-000000000001-lock-", "worker-1");
        createEphemeral("/app/locks/_c_11111111-0000-4000-8000-000000000002-lock-", "worker-2");

        Cli.Result shallow = baton("inspect", "/app", "--connect", zk.connectString());
        assertThat(shallow.exitCode()).as(shallow.toString()).isZero();
        assertThat(shallow.outLines()).containsExactly(
                "/app  (empty)",
                "  config  (empty)  (1 child)",
                "  locks   (empty)  (2 children)  [lock (a mutex, or a leader selector's election): \"worker-1\" holds"
                        + " it (leads), 1 waiting]");

        Cli.Result deep = baton("inspect", "/app", "-r", "--connect", zk.connectString());
        assertThat(deep.exitCode()).as(deep.toString()).isZero();
        List<String> lines = deep.outLines();
        assertThat(lines).hasSize(6);
        assertThat(lines.get(2)).isEqualTo("    flags  42 (4-byte int 0x0000002a)");
        assertThat(lines.get(4)).contains("lock-0000000000").contains("\"worker-1\"").endsWith("[#1 holder (leader)]");
        assertThat(lines.get(5)).contains("lock-0000000001").contains("\"worker-2\"").endsWith("[#2 waiting]");
    }

    @Test
    void missingNodeIsAnError() {
        Cli.Result result = baton("inspect", "/nowhere", "--connect", zk.connectString());

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("no node /nowhere");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void badPathIsAUsageError() {
        Cli.Result result = baton("inspect", "no-slash", "--connect", zk.connectString());

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("no-slash");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void unreachableServerIsAnError() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort(); // free once closed: nothing listens there
        }

        Cli.Result result = baton("inspect", "/", "--connect", "127.0.0.1:" + port, "--timeout", "1");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).contains("cannot connect to 127.0.0.1:" + port);
    }

    private static void createEphemeral(String prefix, String id) throws Exception {
        client.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(prefix, id.getBytes(UTF_8));
    }
}
