package dev.baton.recipes.docs;

// README.md begin client
import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.ExponentialBackoffRetry;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;

// README.md end client
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.OperationEvent;
import dev.baton.OperationListener;
import dev.baton.retry.RetryOneTime;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import dev.baton.testing.ServerSecurity;
import dev.baton.testing.TlsCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.X509Util.ClientAuth;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * README.md's examples of the client and the testing kit, line for line (checked by {@link DocsMirrorTest}), run
 * against embedded servers: each test checks what its example shows.
 */
@Timeout(120)
@Tag("slow")
class ReadmeClientTest {
    // README.md begin testing-kit
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void expiresOnTheServer() throws Exception {
        try (BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10))) {
            client.start();
            client.blockUntilConnected(10, TimeUnit.SECONDS);
            zk.server().expireSession(client.getZooKeeper());   // server ends the session and its ephemerals
        }
    }
    // README.md end testing-kit

    /** The client the fragments use. */
    private BatonClient client;

    /** The README's {@code log}: records what the operation hook logs. */
    private final RecordingLog log = new RecordingLog();

    @BeforeEach
    void startClient() throws InterruptedException {
        client = Baton.newClient(zk.connectString(), new RetryOneTime(10));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    static void clientExample(String connectString) throws Exception {
        // README.md begin client
        try (BatonClient client = Baton.newClient(connectString, new ExponentialBackoffRetry(1000, 3))) {   // "host:port,..."
            client.start();                                        // connects in the background
            client.blockUntilConnected(10, TimeUnit.SECONDS);

            client.create().creatingParentsIfNeeded().forPath("/app/config", "v1".getBytes(StandardCharsets.UTF_8));
            byte[] data = client.getData().forPath("/app/config");
            client.setData().withVersion(0).forPath("/app/config", "v2".getBytes(StandardCharsets.UTF_8));

            // Protected ephemeral-sequential node: found again, never created twice, after a connection loss.
            String me = client.create().creatingParentContainersIfNeeded().withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath("/app/members/member-");

            client.delete().guaranteed().deletingChildrenIfNeeded().forPath("/app");
        }
        // README.md end client
    }

    @Test
    void theClientExampleCreatesReadsUpdatesAndDeletes() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        client.getZooKeeper().addWatch("/", e -> seen.add(e.getType() + " " + e.getPath()),
                AddWatchMode.PERSISTENT_RECURSIVE);
        clientExample(zk.connectString());
        await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("NodeDeleted /app"));
        List<String> relevant = new ArrayList<>(seen);
        relevant.removeIf(e -> !e.startsWith("NodeCreated /app/config") && !e.startsWith("NodeDataChanged")
                && !e.startsWith("NodeCreated /app/members/") && !e.equals("NodeDeleted /app"));
        assertThat(relevant).hasSize(4);
        assertThat(relevant.subList(0, 2)).containsExactly("NodeCreated /app/config", "NodeDataChanged /app/config");
        assertThat(relevant.get(2)).matches("NodeCreated /app/members/_c_[0-9a-f-]{36}-member-0000000000");
        assertThat(relevant.get(3)).isEqualTo("NodeDeleted /app");
        assertThat(client.checkExists().forPath("/app")).isNull();
    }

    @Test
    void everyOperationHasThreeForms() throws Exception {
        client.create().forPath("/x", "x-data".getBytes(StandardCharsets.UTF_8));
        client.create().forPath("/x/child");
        try (StdOut out = StdOut.capture()) {
            // README.md begin three-forms
            Stat stat = client.checkExists().forPath("/x");                                  // blocking
            CompletableFuture<byte[]> f = client.getData().forPathAsync("/x");               // future
            client.getChildren().inBackground((c, event) -> System.out.println(event.children())).forPath("/x"); // callback
            // README.md end three-forms
            assertThat(stat.getNumChildren()).isEqualTo(1);
            assertThat(new String(f.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8)).isEqualTo("x-data");
            await().atMost(Duration.ofSeconds(30)).until(() -> out.lines().contains("[child]"));
        } finally {
            client.delete().deletingChildrenIfNeeded().forPath("/x");
        }
    }

    @Test
    void connectionStatesReachTheListenerInOrder() throws Exception {
        try (StdOut out = StdOut.capture();
                BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10))) {
            // README.md begin connection-states
            client.getConnectionStateListenable().addListener((c, state) -> System.out.println(state));
            // README.md end connection-states
            client.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> out.lines().contains("CONNECTED"));
            zk.server().expireSession(client.getZooKeeper());
            await().atMost(Duration.ofSeconds(30)).until(() -> out.lines().contains("RECONNECTED"));
            assertThat(out.lines()).containsSubsequence("CONNECTED", "LOST", "RECONNECTED");
        }
    }

    @Test
    void theOperationHookLogsFailuresAndStates() throws Exception {
        // README.md begin operation-hook
        client.getOperationListenable().addListener(new OperationListener() {
            public void operationCompleted(OperationEvent op) {           // type, path, duration, resultCode, retries
                if (!op.isOk()) {
                    log.warn("{} {} -> {} after {} retries in {}", op.type(), op.path(), op.resultCode(), op.retries(),
                            op.duration());
                }
            }
            public void connectionStateChanged(ConnectionState state) {    // every state, in order
                log.info("ZooKeeper connection {}", state);
            }
        });
        // README.md end operation-hook
        assertThatThrownBy(() -> client.getData().forPath("/missing")).isInstanceOf(KeeperException.NoNodeException.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> log.lines.stream()
                .anyMatch(l -> l.matches("WARN GET_DATA /missing -> NONODE after 0 retries in PT.*")));
        zk.server().expireSession(client.getZooKeeper());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> log.lines.contains("INFO ZooKeeper connection RECONNECTED"));
        assertThat(log.lines).contains("INFO ZooKeeper connection LOST");
    }

    /** The passwords {@code securedClient} reads, by name; the README's stand-in for a vault or the environment. */
    private static final Map<String, String> SECRETS = new ConcurrentHashMap<>();

    static String secret(String name) {
        return SECRETS.get(name);
    }

    // README.md begin tls-client
    static BatonClient securedClient(String servers, Path keys) {   // ("zk1:2281,zk2:2281", Path.of("/etc/app"))
        ZKClientConfig tls = new ZKClientConfig();     // starts from the JVM's zookeeper.* system properties
        tls.setProperty(ZKClientConfig.SECURE_CLIENT, "true");                              // zookeeper.client.secure
        tls.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        // Whom to trust, and the x509 client certificate; the passwords from your vault, the environment, ...
        tls.setProperty("zookeeper.ssl.trustStore.location", keys.resolve("zk-truststore.p12").toString());
        tls.setProperty("zookeeper.ssl.trustStore.password", secret("ZK_TRUSTSTORE_PASSWORD"));
        tls.setProperty("zookeeper.ssl.keyStore.location", keys.resolve("zk-client.p12").toString());
        tls.setProperty("zookeeper.ssl.keyStore.password", secret("ZK_KEYSTORE_PASSWORD"));

        List<ACL> appOnly = ZooDefs.Ids.CREATOR_ALL_ACL;   // only its creator: x509:<its subject>, digest:app:...
        return Baton.builder()
                .connectString(servers)                    // the servers' secureClientPort
                .zkClientConfig(tls)
                .authorization("digest", "app:secret".getBytes(StandardCharsets.UTF_8))   // optional, repeatable
                .aclProvider(() -> appOnly)
                .retryPolicy(new ExponentialBackoffRetry(1000, 3))
                .build();
    }
    // README.md end tls-client

    @Test
    void theSecuredClientIsKnownByItsCertificateAndItsNodesAreItsOwn(@TempDir Path keys) throws Exception {
        try (TlsCertificates certs = TlsCertificates.create();
                EmbeddedZooKeeper server = EmbeddedZooKeeper.builder().security(ServerSecurity.builder()
                        .tls(certs).clientAuth(ClientAuth.NEED).build()).build().start()) {
            Files.copy(certs.trustStore().path(), keys.resolve("zk-truststore.p12"));
            Files.copy(certs.clientKeyStore("app").path(), keys.resolve("zk-client.p12"));
            SECRETS.put("ZK_TRUSTSTORE_PASSWORD", certs.trustStore().password());
            SECRETS.put("ZK_KEYSTORE_PASSWORD", certs.clientKeyStore("app").password());
            try (BatonClient app = securedClient(server.connectString(), keys);
                    BatonClient bob = Baton.builder().connectString(server.connectString())
                            .zkClientConfig(certs.clientConfig("bob")).retryPolicy(new RetryOneTime(10)).build()) {
                app.start();
                assertThat(app.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
                app.create().creatingParentsIfNeeded().forPath("/app/config", "v1".getBytes(StandardCharsets.UTF_8));
                assertThat(app.getACL().forPath("/app/config")).extracting(ACL::getId)
                        .contains(new Id("x509", certs.subject("app")))
                        .anyMatch(id -> id.getScheme().equals("digest") && id.getId().startsWith("app:"));
                bob.start();
                assertThat(bob.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(() -> bob.getData().forPath("/app/config"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
            }
        }
    }

    @Test
    void theSecuredTestServerKnowsAliceByHerCertificate() throws Exception {
        try (StdOut out = StdOut.capture()) {
            // README.md begin secured-server
            try (TlsCertificates certs = TlsCertificates.create();
                    EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(ServerSecurity.builder()
                            .tls(certs).clientAuth(ClientAuth.NEED)          // x509: the client is x509:CN=alice,O=Baton test kit
                            .saslUser("alice", "alice-secret")               // sasl:alice with Jaas.clientConfig("alice", ...)
                            .build()).build().start();
                    BatonClient alice = Baton.builder().connectString(zk.connectString())   // the TLS port
                            .zkClientConfig(certs.clientConfig("alice")).retryPolicy(new RetryOneTime(10)).build()) {
                alice.start();
                alice.create().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath("/alice-only");
                Id owner = alice.getACL().forPath("/alice-only").get(0).getId();
                System.out.println(owner.getScheme() + ":" + owner.getId());     // x509:CN=alice,O=Baton test kit
            }
            // README.md end secured-server
            assertThat(out.lines()).containsExactly("x509:CN=alice,O=Baton test kit");
        }
    }

    /** An SLF4J-style logger that keeps each line as {@code LEVEL message}. */
    static final class RecordingLog {
        final List<String> lines = new CopyOnWriteArrayList<>();

        void warn(String format, Object... arguments) {
            lines.add("WARN " + format(format, arguments));
        }

        void info(String format, Object... arguments) {
            lines.add("INFO " + format(format, arguments));
        }

        private static String format(String format, Object... arguments) {
            StringBuilder out = new StringBuilder();
            int from = 0;
            for (Object argument : arguments) {
                int at = format.indexOf("{}", from);
                out.append(format, from, at).append(argument);
                from = at + 2;
            }
            return out.append(format.substring(from)).toString();
        }
    }
}
