package dev.baton;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.retry.RetryNTimes;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.Jaas;
import dev.baton.testing.KeyStoreFile;
import dev.baton.testing.ServerSecurity;
import dev.baton.testing.TlsCertificates;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.X509Util.ClientAuth;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SPEC §8 against real servers from the test kit: every operation over TLS, x509 identities in the ACL
 * provider's ACLs (parents and containers included), a refused certificate failing within the connection timeout
 * with the reason, SASL DIGEST-MD5 with a right and a wrong password, and digest authentication sent on every new
 * session before its first request.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Tag("slow")
class SecurityTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);
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
    }

    private static BatonClient started(String connectString, ZKClientConfig config) throws InterruptedException {
        return TestClients.started(Baton.builder().connectString(connectString).zkClientConfig(config));
    }

    @Test
    void everyOperationWorksOverTls() throws Exception {
        try (EmbeddedZooKeeper zk = tlsServer(ClientAuth.WANT);
                BatonClient client = started(zk.connectString(), certs.clientConfig("alice"))) {
            assertThat(zk.liveSessions()).containsExactly(client.getZooKeeper().getSessionId());
            assertThat(client.getZooKeeper().getClientConfig().getBoolean(ZKClientConfig.SECURE_CLIENT)).isTrue();

            List<String> events = new CopyOnWriteArrayList<>();
            client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                    .usingWatcher((Watcher) e -> events.add(e.getType() + " " + e.getPath())).forPath("/tls");
            assertThat(client.create().creatingParentsIfNeeded().forPath("/tls/a/b", bytes("b"))).isEqualTo("/tls/a/b");
            String seq = client.create().withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/tls/a/e-", bytes("e"));
            assertThat(seq).startsWith("/tls/a/_c_");
            assertThat(client.create().orSetData().forPath("/tls/a/b", bytes("b2"))).isEqualTo("/tls/a/b");
            assertThat(client.checkExists().forPath("/tls/a/b")).isNotNull();
            Stat stat = new Stat();
            assertThat(client.getData().storingStatIn(stat).forPath("/tls/a/b")).isEqualTo(bytes("b2"));
            assertThat(client.setData().withVersion(stat.getVersion()).forPath("/tls/a/b", bytes("b3")).getVersion())
                    .isEqualTo(stat.getVersion() + 1);
            assertThat(client.getChildren().forPath("/tls/a")).containsExactlyInAnyOrder("b", seq.substring(7));
            TransactionOp op = client.transactionOp();
            assertThat(client.transaction().forOperations(op.create().forPath("/tls/t", bytes("t")),
                    op.setData().forPath("/tls/a/b", bytes("b4")))).hasSize(2);
            List<ACL> readOnly = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.ADMIN,
                    ZooDefs.Ids.ANYONE_ID_UNSAFE)));
            client.setACL().withACL(readOnly).forPath("/tls/t");
            assertThat(client.getACL().forPath("/tls/t")).isEqualTo(readOnly);
            client.sync().forPath("/tls");
            assertThat(client.getData().forPathAsync("/tls/a/b").get(10, TimeUnit.SECONDS)).isEqualTo(bytes("b4"));
            CompletableFuture<BatonEvent> background = new CompletableFuture<>();
            client.getChildren().inBackground((c, e) -> background.complete(e)).forPath("/tls");
            assertThat(background.get(10, TimeUnit.SECONDS).children()).containsExactlyInAnyOrder("a", "t");
            client.delete().guaranteed().deletingChildrenIfNeeded().forPath("/tls/a");
            assertThat(client.checkExists().forPath("/tls/a")).isNull();
            await().atMost(WAIT).untilAsserted(() -> assertThat(events)
                    .contains("NodeCreated /tls/a/b", "NodeDataChanged /tls/a/b", "NodeDeleted /tls/a"));
        }
    }

    @Test
    void aclProviderNamesTheX509IdentityOnEveryNodeAndParent() throws Exception {
        List<ACL> aliceOnly = List.of(new ACL(ZooDefs.Perms.ALL, new Id("x509", certs.subject("alice"))));
        try (EmbeddedZooKeeper zk = tlsServer(ClientAuth.NEED);
                BatonClient alice = TestClients.started(Baton.builder().connectString(zk.connectString())
                        .zkClientConfig(certs.clientConfig("alice")).aclProvider(() -> aliceOnly));
                BatonClient bob = started(zk.connectString(), certs.clientConfig("bob"))) {
            alice.create().creatingParentsIfNeeded().forPath("/x509/p/node", bytes("secret"));
            alice.create().creatingParentContainersIfNeeded().forPath("/x509/c/node", bytes("secret"));
            for (String path : List.of("/x509", "/x509/p", "/x509/p/node", "/x509/c", "/x509/c/node")) {
                assertThat(alice.getACL().forPath(path)).as(path).isEqualTo(aliceOnly);
            }
            assertThatThrownBy(() -> bob.getData().forPath("/x509/p/node"))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> bob.create().forPath("/x509/p/bob"))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            alice.delete().forPath("/x509/c/node"); // the parent was made a container: emptied, it goes
            await().atMost(WAIT).until(() -> alice.checkExists().forPath("/x509/c") == null);
            assertThat(alice.checkExists().forPath("/x509/p")).as("a persistent parent stays").isNotNull();
        }
    }

    @Test
    void refusedCertificatesFailWithinTheConnectionTimeoutAndSayWhy() throws Exception {
        // The server's alert does not tell these apart (JDK 17's servers send bad_certificate for all of them,
        // JDK 25's certificate_required), so the hints are asserted, and of the alert only that there was one.
        ZKClientConfig untrustedClient = trusting(strangers.clientConfig("mallory"));
        ZKClientConfig sendsUntrusted = trusting(keyStoreConfig(disguised(strangers.clientKeyStore("mallory"))));
        ZKClientConfig noKey = keyStoreConfig(certs.trustStore()); // a key store, but of certificates only
        try (EmbeddedZooKeeper zk = tlsServer(ClientAuth.NEED)) {
            assertRefused(zk, untrustedClient, "the server refused the client's certificate: the client sent none, "
                    + "as none in its key store (zookeeper.ssl.keyStore.*) is signed by an authority the server "
                    + "trusts", "alert");
            assertRefused(zk, sendsUntrusted, "the server refused the client's certificate: is it signed by an "
                    + "authority the server trusts, and valid now?", "alert");
            assertRefused(zk, certs.clientConfig(), "the server requires a client certificate and none is set", "alert");
            assertRefused(zk, noKey, "the server requires a client certificate and none is set", "alert");
            assertRefused(zk, strangers.clientConfig("alice"), "trust store", "PKIX");
            assertThat(zk.liveSessions()).isEmpty();
        }
    }

    /** {@code config} with the trust store that trusts the server of {@link #certs}. */
    private static ZKClientConfig trusting(ZKClientConfig config) {
        config.setProperty("zookeeper.ssl.trustStore.location", certs.trustStore().path().toString());
        config.setProperty("zookeeper.ssl.trustStore.password", certs.trustStore().password());
        return config;
    }

    /** A client configuration of {@link #certs} with {@code keyStore} as its key store. */
    private static ZKClientConfig keyStoreConfig(KeyStoreFile keyStore) {
        ZKClientConfig config = certs.clientConfig();
        config.setProperty("zookeeper.ssl.keyStore.location", keyStore.path().toString());
        config.setProperty("zookeeper.ssl.keyStore.password", keyStore.password());
        config.setProperty("zookeeper.ssl.keyStore.type", keyStore.type());
        return config;
    }

    /**
     * {@code keyStore}'s key and certificate with the server's authority appended to the chain. A client's key
     * manager offers a certificate whose chain names an authority the server asks for, so this one is sent, and
     * the server refuses it: the authority did not sign it.
     */
    private static KeyStoreFile disguised(KeyStoreFile keyStore) throws Exception {
        KeyStore original = KeyStore.getInstance(keyStore.type());
        try (InputStream in = Files.newInputStream(keyStore.path())) {
            original.load(in, keyStore.password().toCharArray());
        }
        Key key = original.getKey("key", keyStore.password().toCharArray());
        KeyStore disguised = KeyStore.getInstance("JKS"); // PKCS#12 would not store a chain that does not chain
        disguised.load(null, null);
        disguised.setKeyEntry("key", key, keyStore.password().toCharArray(),
                new Certificate[] {original.getCertificate("key"), certs.authority()});
        Path file = certs.directory().resolve("disguised.jks");
        try (OutputStream out = Files.newOutputStream(file)) {
            disguised.store(out, keyStore.password().toCharArray());
        }
        return new KeyStoreFile(file, keyStore.password(), "JKS");
    }

    private static void assertRefused(EmbeddedZooKeeper zk, ZKClientConfig config, String hint, String reason)
            throws InterruptedException {
        // Without the TLS diagnosis, twenty retries would make it twenty-one connection timeouts.
        try (BatonClient client = Baton.builder().connectString(zk.connectString()).zkClientConfig(config)
                .connectionTimeout(CONNECTION_TIMEOUT).retryPolicy(new RetryNTimes(20, 100)).build()) {
            client.start();
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.checkExists().forPath("/"))
                    .isInstanceOf(KeeperException.ConnectionLossException.class)
                    .cause().isInstanceOf(SSLException.class)
                    .hasMessageContaining("TLS handshake with " + zk.connectString())
                    .hasMessageContaining(hint).hasMessageContaining(reason)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(certs.trustStore().password()));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            // The connection wait and one probe (at most 4.5 s), with room for a slow machine: no retry.
            assertThat(took).isLessThan(CONNECTION_TIMEOUT.plusSeconds(9));
            assertThat(client.blockUntilConnected(100, TimeUnit.MILLISECONDS)).isFalse();
        }
    }

    @Test
    void saslDigestLogsInAndAWrongPasswordFailsClearly() throws Exception {
        ServerSecurity security = ServerSecurity.builder().saslUser("alice", "alice-secret").build();
        List<ACL> aliceOnly = List.of(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "alice")));
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(security).build().start();
                BatonClient alice = TestClients.started(Baton.builder().connectString(zk.connectString())
                        .zkClientConfig(Jaas.clientConfig("alice", "alice-secret")).aclProvider(() -> aliceOnly))) {
            alice.create().creatingParentsIfNeeded().forPath("/sasl/node", bytes("x"));
            assertThat(alice.getACL().forPath("/sasl")).isEqualTo(aliceOnly);
            assertThat(alice.getData().forPath("/sasl/node")).isEqualTo(bytes("x"));

            List<Throwable> unhandled = new CopyOnWriteArrayList<>();
            try (BatonClient wrong = Baton.builder().connectString(zk.connectString())
                    .zkClientConfig(Jaas.clientConfig("alice", "not-her-secret"))
                    .connectionTimeout(CONNECTION_TIMEOUT).retryPolicy(new RetryNTimes(3, 100)).build()) {
                wrong.getUnhandledErrorListenable().addListener((message, e) -> unhandled.add(e));
                wrong.start();
                await().atMost(WAIT).until(() -> !unhandled.isEmpty());
                assertThat(unhandled.get(0)).isInstanceOf(KeeperException.AuthFailedException.class);
                long start = System.nanoTime();
                assertThatThrownBy(() -> wrong.getData().forPath("/sasl/node"))
                        .isInstanceOf(KeeperException.AuthFailedException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CONNECTION_TIMEOUT);
            }
        }
    }

    @Test
    void everyNewSessionAuthenticatesBeforeItsFirstRequest() throws Exception {
        // The server closes a session whose first request comes before its digest authentication.
        ServerSecurity security = ServerSecurity.builder().requireAuthentication("digest").build();
        String digest = DigestAuthenticationProvider.generateDigest("alice:alice-secret");
        List<ACL> aliceOnly = List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest)));
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(security).build().start();
                BatonClient alice = TestClients.started(Baton.builder().connectString(zk.connectString())
                        .authorization("digest", "alice:alice-secret".getBytes(UTF_8)).aclProvider(() -> aliceOnly))) {
            List<ConnectionState> states = new CopyOnWriteArrayList<>();
            alice.getConnectionStateListenable().addListener((c, s) -> states.add(s));
            alice.create().creatingParentsIfNeeded().forPath("/auth/node", bytes("1"));
            for (int expiry = 1; expiry <= 2; expiry++) {
                long old = alice.getZooKeeper().getSessionId();
                zk.expireSession(old);
                int seen = expiry;
                await().atMost(WAIT).until(() -> states.stream().filter(ConnectionState.RECONNECTED::equals)
                        .count() == seen);
                assertThat(alice.getZooKeeper().getSessionId()).isNotEqualTo(old);
                assertThat(alice.getData().forPath("/auth/node")).isEqualTo(bytes(Integer.toString(expiry)));
                alice.setData().forPath("/auth/node", bytes(Integer.toString(expiry + 1)));
            }
            assertThat(states).containsSubsequence(ConnectionState.LOST, ConnectionState.RECONNECTED,
                    ConnectionState.LOST, ConnectionState.RECONNECTED);
            assertThat(zk.liveSessions()).containsExactly(alice.getZooKeeper().getSessionId());

            try (BatonClient anonymous = Baton.builder().connectString(zk.connectString())
                    .connectionTimeout(CONNECTION_TIMEOUT).retryPolicy(new RetryNTimes(0, 0)).build()) {
                anonymous.start();
                assertThatThrownBy(() -> anonymous.getData().forPath("/auth/node"))
                        .isInstanceOf(KeeperException.class);
            }
        }
    }

    private static EmbeddedZooKeeper tlsServer(ClientAuth clientAuth) {
        return EmbeddedZooKeeper.builder()
                .security(ServerSecurity.builder().tls(certs).clientAuth(clientAuth).build()).build().start();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }
}
