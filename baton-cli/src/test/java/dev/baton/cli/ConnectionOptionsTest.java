package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** --namespace, --auth and the TLS options both commands take: parsing, secrets, and digest auth on a server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionOptionsTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @TempDir
    Path dir;

    @Test
    void secretsComeFromTheEnvironmentOrAFileNeverFromTheCommandLine() throws Exception {
        Path secret = Files.writeString(dir.resolve("auth"), "alice:s3cret\nignored second line\n");
        ClientSettings settings = parse(Map.of("ZK_AUTH", "bob:pw"), "--auth", "digest:env:ZK_AUTH",
                "--auth", "digest:file:" + secret);
        assertThat(settings.auth()).extracting(a -> a.scheme() + " " + new String(a.auth(), UTF_8))
                .containsExactly("digest bob:pw", "digest alice:s3cret");
        assertThat(settings.describe()).isEqualTo(" (digest auth, digest auth)").doesNotContain("s3cret");

        assertThatIllegalArgumentException().isThrownBy(() -> parse(Map.of(), "--auth", "digest:alice:s3cret"))
                .withMessageContaining("takes env:VAR or file:PATH").withMessageNotContaining("s3cret");
        assertThatIllegalArgumentException().isThrownBy(() -> parse(Map.of(), "--auth", "digest:env:NOPE"))
                .withMessageContaining("'NOPE' is not set");
        assertThatIllegalArgumentException().isThrownBy(() -> parse(Map.of(), "--auth", "digest:file:" + dir
                .resolve("missing"))).withMessageContaining("cannot read");
    }

    @Test
    void tlsStoresTurnOnTlsWithTheirPasswords() throws Exception {
        Path trust = Files.writeString(dir.resolve("trust.p12"), "not really a store");
        Path password = Files.writeString(dir.resolve("pw"), "changeit");
        ClientSettings settings = parse(Map.of(), "--tls-trust-store", trust.toString(), "--tls-trust-store-password",
                "file:" + password, "--namespace", "app");
        assertThat(settings.tls()).containsEntry("zookeeper.client.secure", "true")
                .containsEntry("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty")
                .containsEntry("zookeeper.ssl.trustStore.location", trust.toString())
                .containsEntry("zookeeper.ssl.trustStore.password", "changeit")
                .doesNotContainKey("zookeeper.ssl.keyStore.location");
        assertThat(settings.zkClientConfig().getProperty("zookeeper.client.secure")).isEqualTo("true");
        assertThat(settings.describe()).isEqualTo(" (namespace app, TLS)");
        assertThat(ClientSettings.PLAIN.zkClientConfig()).isNull();

        assertThatIllegalArgumentException().isThrownBy(() -> parse(Map.of(), "--tls-trust-store",
                trust.toString(), "--tls-trust-store-password", "changeit"))
                .withMessageContaining("--tls-trust-store-password takes env:VAR or file:PATH")
                .withMessageNotContaining("changeit");
        assertThatIllegalArgumentException().isThrownBy(() -> parse(Map.of(), "--tls-key-store-password",
                "env:X")).withMessageContaining("needs its store");
        assertThatIllegalArgumentException().isThrownBy(() -> parse(Map.of(), "--tls-key-store",
                dir.resolve("missing.jks").toString())).withMessageContaining("cannot read");
    }

    @Test
    void inspectAuthenticatesWithDigest() throws Exception {
        String digest = DigestAuthenticationProvider.generateDigest("alice:s3cret");
        try (BatonClient owner = Baton.builder().connectString(zk.connectString()).retryPolicy(new RetryOneTime(10))
                .authorization("digest", "alice:s3cret".getBytes(UTF_8)).build()) {
            owner.start();
            assertThat(owner.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            owner.create().withACL(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest))))
                    .forPath("/secret", "hidden".getBytes(UTF_8));

            Cli.Result refused = Cli.baton("inspect", "/secret", "--connect", zk.connectString());
            assertThat(refused.exitCode()).isEqualTo(1);
            assertThat(refused.err()).contains("NoAuth");

            Path secret = Files.writeString(dir.resolve("auth"), "alice:s3cret");
            Cli.Result allowed = Cli.baton("inspect", "/secret", "--connect", zk.connectString(), "--auth",
                    "digest:file:" + secret);
            assertThat(allowed.exitCode()).as(allowed.toString()).isZero();
            assertThat(allowed.out()).startsWith("/secret  \"hidden\"");

            Cli.Result literal = Cli.baton("inspect", "/secret", "--connect", zk.connectString(), "--auth",
                    "digest:alice:s3cret");
            assertThat(literal.exitCode()).isEqualTo(2);
            assertThat(literal.err()).contains("--auth digest takes env:VAR or file:PATH").doesNotContain("s3cret");
        }
    }

    @Test
    void demoRunsInANamespace() throws Exception {
        Cli.Result result = Cli.baton("demo", "barrier", "--connect", zk.connectString(), "--namespace", "demos",
                "--speed", "50");
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).contains("(namespace demos)");
        try (BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(10))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            // The demo's path lived under /demos; only the namespace node itself may remain.
            assertThat(client.getChildren().forPath("/demos")).isEmpty();
        }
    }

    private static ClientSettings parse(Map<String, String> env, String... args) {
        Holder holder = new Holder();
        new CommandLine(holder).parseArgs(args);
        return holder.options.settings(env::get);
    }

    /** A command that only carries the mixin, to parse its options. */
    @CommandLine.Command(name = "test")
    static final class Holder {
        @CommandLine.Mixin
        ConnectionOptions options;
    }
}
