package dev.baton.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operating-system resources the fault-injection kit creates in this JVM: child processes (ZooKeeper
 * servers of a {@link ZooKeeperEnsemble}, {@link DriverProcess} clients) and temporary directories. Tests use it
 * to prove that nothing is left behind:
 * <pre>{@code
 * assertThat(KitResources.liveProcesses()).isEmpty();
 * assertThat(KitResources.liveTemporaryDirectories()).isEmpty();
 * }</pre>
 *
 * <p>Every child JVM the kit starts gets the system property {@code -Dbaton.kit=<marker>}, where the marker is
 * one random UUID per test JVM ({@link #marker()}), so the children can be found from the process table even
 * if the kit lost track of them. A JVM shutdown hook kills every child still alive and deletes every kit
 * directory still present, for tests that forget to close what they started. Children also end by themselves
 * when this JVM dies without running its hooks (SIGKILL): they exit when their standard input reaches
 * end-of-file.
 *
 * <p>Thread-safety: all methods are safe to call from any thread.
 */
public final class KitResources {

    private static final Logger LOG = LoggerFactory.getLogger(KitResources.class);

    /** The name of the system property every child JVM of the kit carries. */
    public static final String MARKER_PROPERTY = "baton.kit";

    private static final String MARKER = UUID.randomUUID().toString();
    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(KitResources::cleanUpEverything, "baton-kit-cleanup"));
    }

    private KitResources() {
    }

    /**
     * The marker of this JVM's kit children: the value of their {@code -Dbaton.kit} system property.
     *
     * @return a random UUID string, the same for the life of this JVM
     */
    public static String marker() {
        return MARKER;
    }

    /**
     * The processes started by the kit in this JVM that are still alive, found from the operating system's
     * process table by their marker (not from the kit's own bookkeeping), so a leak cannot hide.
     *
     * @return a snapshot; empty when everything was cleaned up
     */
    public static List<ProcessHandle> liveProcesses() {
        String flag = "-D" + MARKER_PROPERTY + "=" + MARKER;
        return ProcessHandle.allProcesses()
                .filter(ProcessHandle::isAlive)
                .filter(p -> hasArgument(p, flag))
                .collect(Collectors.toList());
    }

    /**
     * Whether a process's command line holds {@code argument}. The JDK truncates a long command line (a
     * classpath easily makes one) to 4096 characters and then gives no argument list, so on Linux the full
     * line is read from {@code /proc/<pid>/cmdline} when the JDK's view does not show the argument.
     */
    static boolean hasArgument(ProcessHandle process, String argument) {
        ProcessHandle.Info info = process.info();
        if (info.arguments().map(args -> List.of(args).contains(argument)).orElse(false)
                || info.commandLine().map(c -> c.contains(argument)).orElse(false)) {
            return true;
        }
        Path cmdline = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        try (InputStream in = Files.newInputStream(cmdline)) {
            String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return List.of(all.split("\0")).contains(argument);
        } catch (IOException | RuntimeException e) {
            return false; // not Linux, not ours to read, or gone
        }
    }

    /**
     * The temporary directories created by the kit in this JVM that still exist on disk.
     *
     * @return a snapshot; empty when everything was cleaned up
     */
    public static List<Path> liveTemporaryDirectories() {
        return DIRECTORIES.stream().filter(Files::exists).sorted().collect(Collectors.toList());
    }

    /** Starts a child process and tracks it until it exits or {@link #forget(Process)}. */
    // The stage of the exit action is dropped on purpose: forget() only removes from a set, so it has no result
    // or failure to lose.
    @SuppressWarnings("FutureReturnValueIgnored")
    static Process start(ProcessBuilder builder) throws IOException {
        Process process = builder.start();
        PROCESSES.add(process);
        process.onExit().thenRun(() -> forget(process));
        return process;
    }

    /** Stops tracking a process that has exited. */
    static void forget(Process process) {
        PROCESSES.remove(process);
    }

    /**
     * Kills a process hard (SIGKILL) and waits for it to be gone, then stops tracking it.
     *
     * @return true if it is gone
     */
    static boolean killAndWait(Process process, long timeoutMs) {
        process.destroyForcibly();
        try {
            boolean gone = process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
            if (gone) {
                forget(process);
            }
            return gone;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Creates a tracked temporary directory named {@code prefix...}. */
    static Path createTempDirectory(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            DIRECTORIES.add(dir);
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory " + prefix + "*", e);
        }
    }

    /** Deletes a tracked temporary directory (recursively) and stops tracking it. */
    static void deleteTempDirectory(Path dir) {
        Directories.deleteRecursively(dir);
        DIRECTORIES.remove(dir);
    }

    private static void cleanUpEverything() {
        List<Process> left = new ArrayList<>(PROCESSES);
        if (!left.isEmpty()) {
            LOG.warn("killing {} process(es) the kit started and nobody closed", left.size());
        }
        left.forEach(Process::destroyForcibly);
        for (Process p : left) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Path dir : new ArrayList<>(DIRECTORIES)) {
            try {
                Directories.deleteRecursively(dir);
            } catch (UncheckedIOException e) {
                LOG.warn("cannot delete {}", dir, e);
            }
        }
    }
}
