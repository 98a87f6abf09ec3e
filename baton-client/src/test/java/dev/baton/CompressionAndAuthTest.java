package dev.baton;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Faces.Face;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Compression stores GZIP bytes on the server and gives the original back; digest authorization lets the
 * authorized client through an ACL that stops everyone else. Server bytes are read through the raw handle of a
 * client without compression or authorization.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompressionAndAuthTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    private static final Duration WAIT = Duration.ofSeconds(15);
    /** Compressible and long enough that GZIP output differs from it in length. */
    private static final byte[] ORIGINAL = "baton ".repeat(200).getBytes(UTF_8);

    /** No compression, no authorization: it sees what the server stores, and is what "anyone" can do. */
    private static BatonClient plain;

    @BeforeAll
    static void startPlain() throws InterruptedException {
        plain = TestClients.started(zk.connectString());
    }

    @AfterAll
    static void closePlain() {
        if (plain != null) {
            plain.close();
        }
    }

    private static byte[] serverBytes(String path) throws Exception {
        return plain.getZooKeeper().getData(path, false, null);
    }

    private static byte[] gunzip(byte[] gzip) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip))) {
            return in.readAllBytes();
        }
    }

    private static void assertGzipOfOriginal(byte[] stored, byte[] original) throws IOException {
        assertThat(stored).isNotEqualTo(original);
        assertThat(stored.length).isLessThan(original.length);
        assertThat(stored[0] & 0xff).as("GZIP magic").isEqualTo(0x1f);
        assertThat(stored[1] & 0xff).as("GZIP magic").isEqualTo(0x8b);
        assertThat(gunzip(stored)).isEqualTo(original);
    }

    // -------------------------------------------------------------------------------------------- compression

    @ParameterizedTest
    @EnumSource(Face.class)
    void compressedCreateStoresGzipAndDecompressedReadGivesTheOriginal(Face face) throws Exception {
        String path = TestClients.unique("compressed");
        Faces.run(face, plain.create().compressed(), path, ORIGINAL, BatonEventType.CREATE, Faces::created).get();
        assertGzipOfOriginal(serverBytes(path), ORIGINAL);

        assertThat(Faces.run(face, plain.getData().decompressed(), path, BatonEventType.GET_DATA, BatonEvent::data)
                .get()).isEqualTo(ORIGINAL);
        assertThat(Faces.run(face, plain.getData(), path, BatonEventType.GET_DATA, BatonEvent::data).get())
                .as("a read without decompressed() gives the stored bytes").isEqualTo(serverBytes(path));

        byte[] changed = "changed ".repeat(100).getBytes(UTF_8);
        Faces.run(face, plain.setData().compressed(), path, changed, BatonEventType.SET_DATA, BatonEvent::stat)
                .get();
        assertGzipOfOriginal(serverBytes(path), changed);
        assertThat(plain.getData().decompressed().forPath(path)).isEqualTo(changed);

        Faces.run(face, plain.create().orSetData().compressed(), path, ORIGINAL, BatonEventType.CREATE,
                Faces::created).get();
        assertGzipOfOriginal(serverBytes(path), ORIGINAL);
    }

    @Test
    void compressedTransactionOperations() throws Exception {
        String path = TestClients.unique("compressed-txn");
        TransactionOp op = plain.transactionOp();
        plain.transaction().forOperations(op.create().compressed().forPath(path, ORIGINAL));
        assertGzipOfOriginal(serverBytes(path), ORIGINAL);
        byte[] changed = "txn ".repeat(100).getBytes(UTF_8);
        plain.transaction().forOperations(op.setData().compressed().forPath(path, changed));
        assertGzipOfOriginal(serverBytes(path), changed);
    }

    @Test
    void enableCompressionMakesCompressionTransparent() throws Exception {
        try (BatonClient client = TestClients.started(Baton.builder().connectString(zk.connectString())
                .enableCompression())) {
            String path = TestClients.unique("transparent");
            client.create().forPath(path, ORIGINAL);
            assertGzipOfOriginal(serverBytes(path), ORIGINAL);
            assertThat(client.getData().forPath(path)).isEqualTo(ORIGINAL);
            assertThat(client.getData().forPathAsync(path).get(10, TimeUnit.SECONDS)).isEqualTo(ORIGINAL);

            byte[] changed = "again ".repeat(100).getBytes(UTF_8);
            client.setData().forPath(path, changed);
            assertGzipOfOriginal(serverBytes(path), changed);
            assertThat(client.getData().forPath(path)).isEqualTo(changed);

            String inTxn = TestClients.unique("transparent-txn");
            client.transaction().forOperations(client.transactionOp().create().forPath(inTxn, ORIGINAL));
            assertGzipOfOriginal(serverBytes(inTxn), ORIGINAL);
            assertThat(client.getData().forPath(inTxn)).isEqualTo(ORIGINAL);
        }
    }

    @Test
    void aCustomCompressionProviderIsUsed() throws Exception {
        CompressionProvider reversing = new CompressionProvider() {
            @Override
            public byte[] compress(String path, byte[] data) {
                return reverse(data);
            }

            @Override
            public byte[] decompress(String path, byte[] compressed) {
                return reverse(compressed);
            }
        };
        try (BatonClient client = TestClients.started(Baton.builder().connectString(zk.connectString())
                .compressionProvider(reversing))) {
            String path = TestClients.unique("custom-compression");
            byte[] data = "abc".getBytes(UTF_8);
            client.create().compressed().forPath(path, data);
            assertThat(serverBytes(path)).isEqualTo("cba".getBytes(UTF_8));
            assertThat(client.getData().decompressed().forPath(path)).isEqualTo(data);
        }
    }

    private static byte[] reverse(byte[] data) {
        byte[] out = new byte[data.length];
        for (int i = 0; i < data.length; i++) {
            out[i] = data[data.length - 1 - i];
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------ authorization

    private static List<ACL> digestAcl(String userAndPassword) throws Exception {
        return List.of(new ACL(ZooDefs.Perms.ALL,
                new Id("digest", DigestAuthenticationProvider.generateDigest(userAndPassword))));
    }

    private static BatonClient authorized(String userAndPassword) throws InterruptedException {
        return TestClients.started(Baton.builder().connectString(zk.connectString())
                .authorization("digest", userAndPassword.getBytes(UTF_8)));
    }

    @ParameterizedTest
    @EnumSource(Face.class)
    void aDigestAclAdmitsOnlyTheAuthorizedClient(Face face) throws Exception {
        String path = TestClients.unique("secret");
        byte[] secret = "s3cret".getBytes(UTF_8);
        try (BatonClient user = authorized("user:pw"); BatonClient intruder = authorized("user:wrong")) {
            Faces.run(face, user.create().withACL(digestAcl("user:pw")), path, secret, BatonEventType.CREATE,
                    Faces::created).get();
            assertThat(user.getACL().forPath(path)).isEqualTo(digestAcl("user:pw"));
            assertThat(Faces.run(face, plain.getACL(), path, BatonEventType.GET_ACL, BatonEvent::acls).failure())
                    .as("reading the ACL needs READ or ADMIN").isInstanceOf(KeeperException.NoAuthException.class);

            for (BatonClient stranger : List.of(plain, intruder)) {
                KeeperException read = Faces.run(face, stranger.getData(), path, BatonEventType.GET_DATA,
                        BatonEvent::data).failure();
                assertThat(read).isInstanceOf(KeeperException.NoAuthException.class);
                assertThat(read.getPath()).isEqualTo(path);
                assertThat(Faces.run(face, stranger.setData(), path, "x".getBytes(UTF_8), BatonEventType.SET_DATA,
                        BatonEvent::stat).failure()).isInstanceOf(KeeperException.NoAuthException.class);
                assertThat(Faces.run(face, stranger.create(), path + "/child", new byte[0], BatonEventType.CREATE,
                        Faces::created).failure()).isInstanceOf(KeeperException.NoAuthException.class);
            }

            assertThat(Faces.run(face, user.getData(), path, BatonEventType.GET_DATA, BatonEvent::data).get())
                    .isEqualTo(secret);
            Stat stat = Faces.run(face, user.setData(), path, "v2".getBytes(UTF_8), BatonEventType.SET_DATA,
                    BatonEvent::stat).get();
            assertThat(stat.getVersion()).isEqualTo(1);
            assertThat(Faces.run(face, user.create(), path + "/child", new byte[0], BatonEventType.CREATE,
                    Faces::created).get()).isEqualTo(path + "/child");
        }
    }

    @Test
    void creatorAclNeedsAnAuthorizedClient() throws Exception {
        String path = TestClients.unique("creator");
        try (BatonClient user = authorized("owner:pw")) {
            user.create().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath(path, "mine".getBytes(UTF_8));
            assertThat(user.getACL().forPath(path)).isEqualTo(digestAcl("owner:pw"));
            assertThatThrownBy(() -> plain.getData().forPath(path)).isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(user.getData().forPath(path)).isEqualTo("mine".getBytes(UTF_8));
        }
        assertThatThrownBy(() -> plain.create().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath(path + "-anon"))
                .isInstanceOf(KeeperException.InvalidACLException.class);
    }

    @Test
    void severalAuthorizationsAreAllSent() throws Exception {
        String path = TestClients.unique("several");
        try (BatonClient writer = authorized("second:pw")) {
            writer.create().withACL(digestAcl("second:pw")).forPath(path, "x".getBytes(UTF_8));
        }
        try (BatonClient both = TestClients.started(Baton.builder().connectString(zk.connectString())
                .authorization("digest", "first:pw".getBytes(UTF_8))
                .authorization(List.of(new AuthInfo("digest", "second:pw".getBytes(UTF_8)))))) {
            assertThat(both.getData().forPath(path)).isEqualTo("x".getBytes(UTF_8));
        }
    }

    @Test
    void authorizationIsSentAgainOnANewSession() throws Exception {
        String path = TestClients.unique("reauth");
        try (BatonClient user = authorized("again:pw")) {
            user.create().withACL(digestAcl("again:pw")).forPath(path, "x".getBytes(UTF_8));
            long firstSession = user.getZooKeeper().getSessionId();
            zk.server().expireSession(user.getZooKeeper());
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(user.getZooKeeper().getSessionId()).isNotEqualTo(firstSession).isNotZero();
                assertThat(user.getData().forPath(path)).isEqualTo("x".getBytes(UTF_8));
            });
        }
    }
}
