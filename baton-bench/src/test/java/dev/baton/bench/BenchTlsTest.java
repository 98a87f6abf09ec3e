package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --tls}: the clients of every library reach the server through its TLS port, and the run's certificates are
 * gone afterwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Tag("bench")
class BenchTlsTest {

    private static final int OPS = 20;

    @Test
    void getDataRunsOverTlsForEveryLibraryAndTheCertificatesAreDeletedAfterwards() throws Exception {
        BenchOptions options = BenchOptions.parse("--tls", "--scenarios", "get-data", "--ops", String.valueOf(OPS),
                "--slice", "10", "--rounds", "1", "--warmup-rounds", "0");
        Path certificates;
        List<ScenarioResult> results;
        String report;
        try (BenchServer server = BenchServer.embedded(options.tls())) {
            assertThat(server.tls()).isTrue();
            ZKClientConfig config = server.clientConfig();
            assertThat(config.getBoolean(ZKClientConfig.SECURE_CLIENT)).isTrue();
            assertThat(config.getProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET))
                    .isEqualTo("org.apache.zookeeper.ClientCnxnSocketNetty");
            assertThat(config.getProperty("zookeeper.ssl.keyStore.location")).isNotNull();
            certificates = Path.of(config.getProperty("zookeeper.ssl.trustStore.location")).getParent();
            assertThat(certificates).isDirectory();
            // The port the clients are given speaks TLS only, so every session the run gets on it is a TLS one.
            assertThat(plaintextSessionWithin(server.connectString(), 2)).as("a plaintext session on the TLS port")
                    .isFalse();

            results = new BenchRunner(server, options,
                    new PrintStream(PrintStream.nullOutputStream(), true, StandardCharsets.UTF_8))
                    .run(Scenarios.select(options.scenarios(), options.tls()), Libraries.create(options.libraries()));
            report = MarkdownReport.render(results, options, server.describe());
        }

        ScenarioResult getData = results.get(0);
        assertThat(getData.libraries()).containsExactly("Baton", "Curator", "ZooKeeper");
        for (String library : getData.libraries()) {
            RunResult row = getData.median(library);
            assertThat(row.ops()).as(library).isEqualTo(OPS);
            // Counted by the server behind the TLS port: the reads really went through it.
            assertThat(row.requestsPerOp()).as(library).isCloseTo(1.0, within(0.01));
        }
        assertThat(report.lines().findFirst().orElseThrow()).contains("clients over TLS");
        assertThat(certificates).as("the run's certificates").doesNotExist();
    }

    @Test
    void mainRunSaysTlsInTheReportHeader() throws Exception {
        BenchOptions options = BenchOptions.parse("--tls", "--scenarios", "mutex-uncontended", "--libraries",
                "baton,curator", "--ops", "10", "--rounds", "1", "--warmup-rounds", "0");
        ByteArrayOutputStream progress = new ByteArrayOutputStream();

        BenchMain.Report report = BenchMain.run(options, Scenarios.select(options.scenarios(), options.tls()),
                new PrintStream(progress, true, StandardCharsets.UTF_8));

        assertThat(report.markdown().lines().findFirst().orElseThrow()).contains("embedded ZooKeeper at 127.0.0.1:")
                .contains("clients over TLS");
        assertThat(report.markdown()).contains("### mutex-uncontended").contains("| Baton |").contains("| Curator |");
    }

    /** ZooKeeper's Netty server factory leaves a non-daemon thread behind; the bench must exit all the same. */
    @Test
    void mainExitsAfterATlsRun(@TempDir Path dir) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path out = dir.resolve("report.md");
        Process bench = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                BenchMain.class.getName(), "--tls", "--scenarios", "get-data", "--libraries", "zookeeper", "--ops",
                "10", "--rounds", "1", "--warmup-rounds", "0")
                .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertThat(bench.waitFor(60, TimeUnit.SECONDS)).as("the bench exited after its report").isTrue();
            assertThat(bench.exitValue()).isZero();
            assertThat(Files.readString(out)).contains("clients over TLS").contains("| ZooKeeper |");
        } finally {
            bench.destroyForcibly().waitFor();
        }
    }

    /** Whether a plaintext client gets a session on {@code connectString} within {@code seconds}. */
    private static boolean plaintextSessionWithin(String connectString, int seconds) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper plain = new ZooKeeper(connectString, 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            return connected.await(seconds, TimeUnit.SECONDS);
        } finally {
            plain.close();
        }
    }
}
