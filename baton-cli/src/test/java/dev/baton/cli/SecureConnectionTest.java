package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.KeyStoreFile;
import dev.baton.testing.ServerSecurity;
import dev.baton.testing.TlsCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.common.X509Util.ClientAuth;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton inspect} and {@code baton demo} against a TLS server that requires client certificates, with the
 * stores' passwords in files: the x509 identity opens an ACL, a refused certificate is named in the error, and
 * no password is ever printed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SecureConnectionTest {
    @TempDir
    Path dir;

    @Test
    void inspectAndDemoConnectOverTlsWithACertificateAndSayWhyARefusedOneFails() throws Exception {
        try (TlsCertificates certs = TlsCertificates.create();
                TlsCertificates strangers = TlsCertificates.create();
                EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().security(ServerSecurity.builder().tls(certs)
                        .clientAuth(ClientAuth.NEED).build()).build().start()) {
            List<ACL> aliceOnly = List.of(new ACL(ZooDefs.Perms.ALL, new Id("x509", certs.subject("alice"))));
            try (BatonClient alice = Baton.builder().connectString(zk.connectString()).retryPolicy(new RetryOneTime(10))
                    .zkClientConfig(certs.clientConfig("alice")).build()) {
                alice.start();
                assertThat(alice.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue(); // slow on a busy machine
                alice.create().withACL(aliceOnly).forPath("/secret", "hidden".getBytes(UTF_8));
            }
            List<String> secrets = List.of(certs.clientKeyStore("alice").password(), certs.trustStore().password(),
                    strangers.clientKeyStore("mallory").password());

            Cli.Result allowed = Cli.baton(options(zk, certs.clientKeyStore("alice"), certs.trustStore(),
                    "inspect", "/secret", "--timeout", "30"));
            assertThat(allowed.exitCode()).as(allowed.toString()).isZero();
            assertThat(allowed.out()).startsWith("/secret  \"hidden\"");
            assertNoSecret(allowed, secrets);

            Cli.Result demo = Cli.baton(options(zk, certs.clientKeyStore("alice"), certs.trustStore(),
                    "demo", "barrier", "--namespace", "demos", "--speed", "50"));
            assertThat(demo.exitCode()).as(demo.toString()).isZero();
            assertThat(demo.out()).contains("(namespace demos, TLS)");
            assertNoSecret(demo, secrets);

            Cli.Result refused = Cli.baton(options(zk, strangers.clientKeyStore("mallory"), certs.trustStore(),
                    "inspect", "/secret", "--timeout", "1"));
            assertThat(refused.exitCode()).isEqualTo(1);
            assertThat(refused.err()).contains("cannot connect to " + zk.connectString() + " within 1s: the TLS "
                    + "handshake with " + zk.connectString() + " failed").contains("alert")
                    .contains("the server refused the client's certificate"); // the alert's name varies by JDK
            assertNoSecret(refused, secrets);
        }
    }

    private String[] options(EmbeddedZooKeeper zk, KeyStoreFile key, KeyStoreFile trust, String... command)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(List.of("--connect", zk.connectString(),
                "--tls-key-store", key.path().toString(), "--tls-key-store-password", "file:" + secretFile(key),
                "--tls-trust-store", trust.path().toString(), "--tls-trust-store-password", "file:" + secretFile(trust)));
        return args.toArray(String[]::new);
    }

    private Path secretFile(KeyStoreFile store) throws Exception {
        return Files.writeString(Files.createTempFile(dir, "pw-", ".txt"), store.password() + "\n");
    }

    private static void assertNoSecret(Cli.Result result, List<String> secrets) {
        for (String secret : secrets) {
            assertThat(result.out()).doesNotContain(secret);
            assertThat(result.err()).doesNotContain(secret);
        }
    }
}
