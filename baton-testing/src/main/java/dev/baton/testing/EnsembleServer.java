package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server of a {@link ZooKeeperEnsemble}: its files, ports and process. It launches its JVM (running ZooKeeper's
 * {@code QuorumPeerMain} on the {@code zoo.cfg} that {@link ServerConfigFiles} wrote), waits until it answers,
 * and kills, stops, pauses and resumes it. Its fields are written under the ensemble's lock and are volatile
 * because the ensemble's accessors read them without it.
 */
final class EnsembleServer {

    private static final Logger LOG = LoggerFactory.getLogger(EnsembleServer.class);
    private static final String QUORUM_PEER_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    static final int FOUR_LETTER_TIMEOUT_MS = 2_000;
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);

    final int id;
    final Path dir;
    final Path config;
    final Path dataDir;
    final Path logFile;
    private final String ensembleName;
    private final EnsembleSettings settings;
    /** The plaintext client port (four-letter words; the clients' port without TLS). */
    volatile int clientPort;
    /** The TLS client port; 0 without TLS. */
    volatile int secureClientPort;
    volatile int quorumPort;
    volatile int electionPort;
    /** The process of the last launch; null before the first. */
    volatile @Nullable Process process;
    volatile boolean paused;
    /** The release this server runs (from its next launch on, once changed) and that release's class path. */
    volatile String version;
    volatile String classpath;
    /** Where the log of the current launch begins. */
    private volatile long logOffset;

    EnsembleServer(int id, Path dir, String ensembleName, EnsembleSettings settings) {
        this.id = id;
        this.dir = dir;
        this.config = dir.resolve("zoo.cfg");
        this.dataDir = dir.resolve("data");
        this.logFile = dir.resolve("server.log");
        this.ensembleName = ensembleName;
        this.settings = settings;
        this.version = settings.serverVersion();
        this.classpath = settings.classpath();
    }

    boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Whether it serves clients now: it runs, is not paused and answers {@code srvr} as leader or follower. */
    boolean isServing() {
        return isRunning() && !paused && mode().isPresent();
    }

    /** The port clients use: the TLS one with TLS. */
    int servingPort() {
        return secureClientPort != 0 ? secureClientPort : clientPort;
    }

    /** Chooses free ports for the next start of the ensemble. */
    void allocatePorts() {
        clientPort = PortAllocator.allocate();
        secureClientPort = settings.security().tls().isPresent() ? PortAllocator.allocate() : 0;
        quorumPort = PortAllocator.allocate();
        electionPort = PortAllocator.allocate();
    }

    /** The mode it reports with {@code srvr}, whether or not it runs. */
    Optional<String> mode() {
        return FourLetterWords.send(clientPort, "srvr", FOUR_LETTER_TIMEOUT_MS).flatMap(FourLetterWords::mode);
    }

    /** The version it reports in its {@code srvr} answer; empty if it is down, paused or does not answer. */
    Optional<String> reportedVersion() {
        if (!isRunning() || paused) {
            return Optional.empty();
        }
        return FourLetterWords.send(clientPort, "srvr", FOUR_LETTER_TIMEOUT_MS).flatMap(FourLetterWords::version);
    }

    void launch() {
        List<String> jvmArgs = new ArrayList<>();
        jvmArgs.add("-Dzookeeper.extendedTypesEnabled=true");
        jvmArgs.add("-Dzookeeper.admin.enableServer=false");
        jvmArgs.add("-Dzookeeper.4lw.commands.whitelist=*");
        jvmArgs.add("-Dzookeeper.forceSync=no");
        jvmArgs.add("-Dzookeeper.snapshot.trust.empty=true");
        jvmArgs.add("-Dzookeeper.jmx.log4j.disable=true");
        jvmArgs.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
        jvmArgs.add("-Dbaton.kit.server=" + ensembleName + "-" + id);
        jvmArgs.addAll(ServerConfigFiles.securityArgs(this, settings.security()));
        if (settings.reconfigEnabled()) {
            jvmArgs.add(EnsembleReconfig.superDigestArg());
        }
        jvmArgs.addAll(settings.jvmArgs());
        List<String> command = JavaCommand.build(classpath, settings.heap(), jvmArgs,
                OrphanGuard.class.getName(), List.of(QUORUM_PEER_MAIN, config.toAbsolutePath().toString()));
        try {
            logOffset = Files.exists(logFile) ? Files.size(logFile) : 0;
            Files.writeString(logFile, "=== baton: starting server " + id + ": " + String.join(" ", command)
                    + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(Redirect.appendTo(logFile.toFile()));
            Process p = KitResources.start(builder);
            process = p;
            paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start server " + id, e);
        }
    }

    /** Launches; if the process dies because a port is taken, waits a little and launches again. */
    void launchRetryingBusyPorts(long deadline) {
        while (true) {
            launch();
            try {
                awaitAnswering(deadline);
                return;
            } catch (PortTakenException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                LOG.debug("server {}: {}; retrying", id, e.getMessage());
                sleepMillis(500);
            }
        }
    }

    void awaitAnswering(long deadline) {
        awaitFourLetter(deadline, answer -> answer.contains("imok"), "ruok");
    }

    void awaitServing(long deadline) {
        awaitFourLetter(deadline, answer -> FourLetterWords.mode(answer).isPresent(), "srvr");
    }

    private void awaitFourLetter(long deadline, Predicate<String> ok, String command) {
        while (true) {
            Process p = process;
            if (p == null || !p.isAlive()) {
                String tail = logTail();
                if (tail.contains("Address already in use") || tail.contains("BindException")) {
                    throw new PortTakenException("server " + id + " could not bind a port");
                }
                throw new IllegalStateException("server " + id + " of ensemble " + ensembleName + " exited ("
                        + (p == null ? "never started" : "code " + p.exitValue()) + "); log " + logFile
                        + " ends with:\n" + tail);
            }
            Optional<String> answer = FourLetterWords.send(clientPort, command, FOUR_LETTER_TIMEOUT_MS);
            if (answer.isPresent() && ok.test(answer.get())) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("server " + id + " of ensemble " + ensembleName
                        + " did not answer " + command + " as expected within " + settings.startTimeout()
                        + " (last answer: " + answer.orElse("none") + "); log " + logFile + " ends with:\n"
                        + logTail());
            }
            sleepMillis(100);
        }
    }

    /** The last 40 lines the current launch logged. */
    String logTail() {
        try {
            if (!Files.exists(logFile)) {
                return "";
            }
            byte[] all = Files.readAllBytes(logFile);
            int from = (int) Math.min(logOffset, all.length);
            List<String> lines = List.of(new String(all, from, all.length - from, StandardCharsets.UTF_8)
                    .split("\n"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read the log: " + e + ")";
        }
    }

    void killProcess() {
        Process p = process;
        if (p != null) {
            if (!KitResources.killAndWait(p, STOP_TIMEOUT.toMillis())) {
                LOG.warn("server {} of ensemble {} did not die within {}", id, ensembleName, STOP_TIMEOUT);
            }
        }
        paused = false;
    }

    void stopProcess() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        if (paused) {
            Signals.send(p.pid(), "CONT");
            paused = false;
        }
        p.destroy();
        try {
            if (p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                KitResources.forget(p);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        killProcess();
    }

    /** Sends SIGSTOP. */
    void pause() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("server " + id + " is not running");
        }
        Signals.send(p.pid(), "STOP");
        paused = true;
    }

    /** Sends SIGCONT if paused. */
    void resume() {
        Process p = process;
        if (paused && p != null && p.isAlive()) {
            Signals.send(p.pid(), "CONT");
        }
        paused = false;
    }

    /** Sleeps between two polls of a wait, turning an interrupt into an {@link IllegalStateException}. */
    static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A server's port could not be bound. */
    static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }
}
