package dev.baton.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.X509Util.ClientAuth;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kit's secure servers, with the plain ZooKeeper client: TLS on the client port with certificates made at
 * test time, x509 identities in ACLs, refused certificates, SASL DIGEST-MD5 users from the kit's JAAS files, and
 * required authentication; in-process and as a three-JVM ensemble.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@Tag("slow")
class SecureServersTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static TlsCertificates certs;
    private static TlsCertificates strangers;

    @BeforeAll
    static void makeCertificates() {
        certs = TlsCertificates.create();
        strangers = TlsCertificates.create();
    }

    @AfterAll
    static void deleteCertificates() {
        certs.close();
        strangers.close();
        assertThat(Files.exists(certs.directory())).isFalse();
    }

    @Test
    void certificatesAreMadeForTheLoopbackServerAndForNamedClients() throws Exception {
        assertThat(certs.serverKeyStore().path()).startsWith(certs.directory()).exists();
        assertThat(certs.clientKeyStore("alice")).isSameAs(certs.clientKeyStore("alice"));
        assertThat(certs.subject("alice")).isEqualTo("CN=alice,O=Baton test kit");
        assertThat(certs.authority().getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(certs.serverKeyStore().toString()).doesNotContain(certs.serverKeyStore().password());
        assertThatThrownBy(() -> certs.clientKeyStore("a,b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tlsServerServesTlsClientsAndNamesThemByCertificate() throws Exception {
        ServerSecurity security = ServerSecurity.builder().tls(certs).build();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(security).build().start();
                Handle alice = new Handle(zk.connectString(), certs.clientConfig("alice"));
                Handle bob = new Handle(zk.connectString(), certs.clientConfig("bob"))) {
            assertThat(zk.plaintextPort()).isNotEqualTo(zk.port());
            alice.awaitConnected();
            bob.awaitConnected();
            List<ACL> aliceOnly = acl(new ACL(ZooDefs.Perms.ALL, new Id("x509", certs.subject("alice"))));
            alice.zk.create("/alice", "mine".getBytes(UTF_8), aliceOnly, CreateMode.PERSISTENT);
            assertThat(alice.zk.getData("/alice", false, null)).isEqualTo("mine".getBytes(UTF_8));
            assertThat(alice.zk.getACL("/alice", null)).isEqualTo(aliceOnly);
            assertThatThrownBy(() -> bob.zk.getData("/alice", false, null))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(zk.watchCount()).isZero(); // four-letter words still work, on the plaintext port

            zk.restart();
            alice.awaitState(KeeperState.SyncConnected, 2);
            assertThat(alice.zk.getData("/alice", false, null)).isEqualTo("mine".getBytes(UTF_8));
        }
    }

    @Test
    void requiredClientCertificateMustBeShownAndTrusted() throws Exception {
        ServerSecurity security = ServerSecurity.builder().tls(certs).clientAuth(ClientAuth.NEED).build();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(security).build().start();
                Handle none = new Handle(zk.connectString(), certs.clientConfig());
                Handle untrusted = new Handle(zk.connectString(), withTrustStore(strangers.clientConfig("mallory")));
                Handle plaintext = new Handle(zk.connectString(), new ZKClientConfig());
                Handle trusted = new Handle(zk.connectString(), certs.clientConfig("alice"))) {
            trusted.awaitConnected();
            // The refused ones try again and again for a second: none of them gets a session.
            await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() ->
                    !none.states.contains(KeeperState.SyncConnected)
                            && !untrusted.states.contains(KeeperState.SyncConnected)
                            && !plaintext.states.contains(KeeperState.SyncConnected));
            assertThat(zk.liveSessions()).containsExactly(trusted.zk.getSessionId());
        }
    }

    @Test
    void clientRefusesAServerItsTrustStoreDoesNotVouchFor() throws Exception {
        ServerSecurity security = ServerSecurity.builder().tls(certs).build();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(security).build().start();
                Handle wrongTrust = new Handle(zk.connectString(), strangers.clientConfig("alice"))) {
            await().during(Duration.ofSeconds(1)).atMost(WAIT)
                    .until(() -> !wrongTrust.states.contains(KeeperState.SyncConnected));
            assertThat(zk.liveSessions()).isEmpty();
        }
    }

    @Test
    void saslUsersLogInWithTheirPasswordAndAWrongOneFails() throws Exception {
        ServerSecurity security = ServerSecurity.builder().saslUser("alice", "alice-secret").build();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(security).build().start();
                Handle alice = new Handle(zk.connectString(), Jaas.clientConfig("alice", "alice-secret"));
                Handle wrong = new Handle(zk.connectString(), Jaas.clientConfig("alice", "not-her-secret"))) {
            alice.awaitState(KeeperState.SaslAuthenticated, 1);
            List<ACL> aliceOnly = acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "alice")));
            alice.zk.create("/sasl", new byte[0], aliceOnly, CreateMode.PERSISTENT);
            assertThat(alice.zk.getACL("/sasl", null)).isEqualTo(aliceOnly);

            wrong.awaitState(KeeperState.AuthFailed, 1);
            assertThatThrownBy(() -> wrong.zk.exists("/sasl", false))
                    .isInstanceOf(KeeperException.AuthFailedException.class);
        }
    }

    @Test
    void requiredAuthenticationClosesASessionThatDidNotAuthenticate() throws Exception {
        ServerSecurity security = ServerSecurity.builder().saslUser("alice", "alice-secret")
                .requireAuthentication("sasl").build();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(security).build().start();
                Handle alice = new Handle(zk.connectString(), Jaas.clientConfig("alice", "alice-secret"));
                Handle anonymous = new Handle(zk.connectString(), new ZKClientConfig())) {
            alice.awaitState(KeeperState.SaslAuthenticated, 1);
            assertThat(alice.zk.create("/in", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT))
                    .isEqualTo("/in");
            anonymous.awaitConnected();
            assertThatThrownBy(() -> anonymous.zk.exists("/in", false)).isInstanceOf(KeeperException.class);
            zk.expireSession(alice.zk);
            alice.awaitState(KeeperState.Expired, 1);
        }
    }

    @Test
    void securityOptionsAreCheckedAndNeverShowAPassword() {
        assertThatThrownBy(() -> ServerSecurity.builder().clientAuth(ClientAuth.NEED).build())
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ServerSecurity.builder().saslUser("al ice", "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServerSecurity.builder().saslUser("alice", "quo\"te"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServerSecurity.builder().requireAuthentication())
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ServerSecurity.builder().saslUser("alice", "alice-secret").build().toString())
                .contains("alice").doesNotContain("alice-secret");
    }

    @Test
    void ensembleServesTlsAndSaslOnEveryServerAndKeepsPasswordsOffCommandLines() throws Exception {
        ServerSecurity security = ServerSecurity.builder().tls(certs).clientAuth(ClientAuth.NEED)
                .saslUser("alice", "alice-secret").build();
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(3).security(security).build()) {
            ensemble.start();
            for (int id : ensemble.serverIds()) {
                assertThat(ensemble.clientPort(id)).isNotEqualTo(ensemble.plaintextClientPort(id));
                long pid = ensemble.process(id).orElseThrow().pid();
                String commandLine = Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "cmdline"));
                assertThat(commandLine).contains("zookeeper.ssl.keyStore.passwordPath")
                        .doesNotContain(certs.serverKeyStore().password());
            }
            ZKClientConfig config = certs.clientConfig("alice");
            config.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, Jaas.clientSection("alice", "alice-secret"));
            config.setProperty(Jaas.FIPS_MODE, "false"); // DIGEST-MD5 beside TLS
            try (Handle alice = new Handle(ensemble.connectString(), config)) {
                alice.awaitState(KeeperState.SaslAuthenticated, 1);
                List<ACL> both = acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "alice")),
                        new ACL(ZooDefs.Perms.READ, new Id("x509", certs.subject("alice"))));
                alice.zk.create("/secure", new byte[0], both, CreateMode.PERSISTENT);
                assertThat(alice.zk.getACL("/secure", null)).isEqualTo(both);
            }
            for (int id : ensemble.serverIds()) {
                String server = "127.0.0.1:" + ensemble.clientPort(id);
                try (Handle aliceByCertificate = new Handle(server, certs.clientConfig("alice"));
                        Handle bob = new Handle(server, certs.clientConfig("bob"))) {
                    aliceByCertificate.awaitConnected();
                    bob.awaitConnected();
                    await().atMost(WAIT).ignoreExceptions().until(() ->
                            aliceByCertificate.zk.getData("/secure", false, null) != null);
                    assertThatThrownBy(() -> bob.zk.getData("/secure", false, null))
                            .isInstanceOf(KeeperException.NoAuthException.class);
                }
            }
        }
        assertThat(KitResources.liveProcesses()).isEmpty();
    }

    /** ZooKeeper's handle needs a list that can be asked whether it contains null. */
    private static List<ACL> acl(ACL... entries) {
        return new java.util.ArrayList<>(List.of(entries));
    }

    private static ZKClientConfig withTrustStore(ZKClientConfig config) {
        KeyStoreFile trust = certs.trustStore();
        config.setProperty("zookeeper.ssl.trustStore.location", trust.path().toString());
        config.setProperty("zookeeper.ssl.trustStore.password", trust.password());
        return config;
    }

    /** A plain ZooKeeper handle that records its connection states. */
    private static final class Handle implements AutoCloseable {
        final List<KeeperState> states = new CopyOnWriteArrayList<>();
        final ZooKeeper zk;

        Handle(String connectString, ZKClientConfig config) {
            try {
                zk = new ZooKeeper(connectString, 10_000, event -> {
                    if (event.getType() == EventType.None) {
                        states.add(event.getState());
                    }
                }, config);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void awaitConnected() {
            awaitState(KeeperState.SyncConnected, 1);
        }

        void awaitState(KeeperState state, int times) {
            await().atMost(WAIT).until(() -> states.stream().filter(state::equals).count() >= times);
        }

        @Override
        public void close() throws InterruptedException {
            zk.close(1_000);
        }
    }
}
