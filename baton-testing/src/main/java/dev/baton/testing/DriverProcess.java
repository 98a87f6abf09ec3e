package dev.baton.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client program running in its own JVM, driven over the line protocol of {@link DriverMain}: the kit's way
 * to run a ZooKeeper client that can be paused (SIGSTOP, the stand-in for a long GC pause), resumed and killed
 * for real.
 *
 * <pre>{@code
 * try (DriverProcess driver = DriverProcess.builder(ZooKeeperClientDriver.class).start()) {
 *     driver.call("connect", ensemble.connectString(), "4000");
 *     driver.call("await-state", "SyncConnected", "30000");
 *     driver.pause();                                   // SIGSTOP: it answers nothing now
 *     ...
 *     driver.resume();                                  // SIGCONT
 *     driver.awaitEvent("state Expired"::equals, Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>The child runs with the kit's JVM flags ({@code -Xmx64m} by default, serial GC, C1 only, the
 * {@code -Dbaton.kit} marker) on this JVM's classpath unless told otherwise. Its standard error goes to
 * {@link #logFile()} in a temporary directory deleted by {@link #close()}; its standard output carries the
 * protocol. It ends by itself if this JVM dies (its standard input closes).
 *
 * <p>Thread-safety: all methods are safe to call from any thread; {@link #call} is serialized.
 */
public final class DriverProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DriverProcess.class);
    private static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger DRIVER_NUMBERS = new AtomicInteger();

    private final String name;
    private final Path directory;
    private final Path logFile;
    private final Process process;
    private final OutputStream stdin;
    private final LinkedBlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Object eventSignal = new Object();
    private final CompletableFuture<Long> ready = new CompletableFuture<>();
    /** Called with each event as it arrives; null if none. */
    private final @Nullable Consumer<String> eventListener;
    private final Object callLock = new Object();

    private long sequence;
    private volatile boolean exited;
    private volatile boolean paused;
    private volatile boolean closed;

    private DriverProcess(Builder b) {
        this.name = b.name != null ? b.name : "d" + DRIVER_NUMBERS.incrementAndGet();
        this.directory = KitResources.createTempDirectory("baton-driver-");
        this.logFile = directory.resolve("driver.log");
        this.eventListener = b.eventListener;
        List<String> jvmArgs = new ArrayList<>();
        jvmArgs.add("-Dbaton.kit.driver=" + name);
        jvmArgs.addAll(b.jvmArgs);
        String classpath = (b.classpath != null ? b.classpath : JavaCommand.currentClasspath())
                + (b.extraClasspath.isEmpty() ? "" : File.pathSeparator + b.extraClasspath);
        List<String> command = JavaCommand.build(classpath, b.heap, jvmArgs, b.mainClass, b.args);
        try {
            Files.writeString(logFile, "=== baton: starting driver " + name + ": " + String.join(" ", command) + "\n",
                    StandardCharsets.UTF_8);
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectError(Redirect.appendTo(logFile.toFile()));
            this.process = KitResources.start(pb);
        } catch (IOException e) {
            KitResources.deleteTempDirectory(directory);
            throw new UncheckedIOException("cannot start driver " + name, e);
        }
        this.stdin = process.getOutputStream();
        Thread reader = new Thread(this::readStdout, "baton-driver-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * A builder for a driver whose main class is {@code mainClass}.
     *
     * @param mainClass a class whose {@code main} uses {@link DriverMain}
     * @return a new builder
     */
    public static Builder builder(Class<?> mainClass) {
        return new Builder(Objects.requireNonNull(mainClass, "mainClass").getName());
    }

    /**
     * A builder for a driver whose main class is named {@code mainClass}.
     *
     * @param mainClass the binary name of a class whose {@code main} uses {@link DriverMain}
     * @return a new builder
     */
    public static Builder builder(String mainClass) {
        return new Builder(Objects.requireNonNull(mainClass, "mainClass"));
    }

    /**
     * Sends a command and waits up to 30 seconds for its answer.
     *
     * @param command the command name
     * @param args its arguments, one word each
     * @return the answer's payload ({@code ""} if none)
     * @throws DriverException if the driver answers {@code ERR}, does not answer in time, or has ended
     * @throws IllegalArgumentException if a word is empty or holds whitespace
     * @throws InterruptedException if interrupted while waiting
     */
    public String call(String command, String... args) throws InterruptedException {
        return call(DEFAULT_CALL_TIMEOUT, command, args);
    }

    /**
     * Sends a command and waits for its answer. A late answer to a command that timed out is discarded.
     *
     * @param timeout the longest wait
     * @param command the command name
     * @param args its arguments, one word each
     * @return the answer's payload ({@code ""} if none)
     * @throws DriverException if the driver answers {@code ERR}, does not answer in time, or has ended
     * @throws IllegalArgumentException if a word is empty or holds whitespace
     * @throws InterruptedException if interrupted while waiting
     */
    public String call(Duration timeout, String command, String... args) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        StringBuilder line = new StringBuilder();
        List<String> words = new ArrayList<>();
        words.add(Objects.requireNonNull(command, "command"));
        words.addAll(List.of(args));
        for (String word : words) {
            Objects.requireNonNull(word, "argument");
            if (word.isEmpty() || word.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("driver arguments are single words: '" + word + "'");
            }
            line.append(' ').append(word);
        }
        synchronized (callLock) {
            long seq = ++sequence;
            String prefix = seq + " ";
            try {
                stdin.write((seq + line.toString() + "\n").getBytes(StandardCharsets.UTF_8));
                stdin.flush();
            } catch (IOException e) {
                throw new DriverException(DriverException.Reason.EXITED, "driver " + name + " has ended ("
                        + command + "): " + e.getMessage() + "; see " + logFile);
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                String reply = left > 0 ? replies.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)),
                        TimeUnit.NANOSECONDS) : replies.poll();
                if (reply == null) {
                    if (exited && replies.isEmpty()) {
                        throw new DriverException(DriverException.Reason.EXITED, "driver " + name
                                + " ended before answering " + command + "; see " + logFile);
                    }
                    if (left <= 0) {
                        throw new DriverException(DriverException.Reason.TIMEOUT, "driver " + name
                                + " did not answer " + command + " within " + timeout + (paused ? " (paused)" : ""));
                    }
                    continue;
                }
                if (!reply.startsWith(prefix)) {
                    continue; // the late answer of an earlier command that timed out
                }
                String rest = reply.substring(prefix.length());
                if (rest.equals("OK")) {
                    return "";
                }
                if (rest.startsWith("OK ")) {
                    return rest.substring(3);
                }
                throw new DriverException(DriverException.Reason.ERROR_REPLY, "driver " + name + ": " + command
                        + " failed: " + (rest.startsWith("ERR ") ? rest.substring(4) : rest));
            }
        }
    }

    /**
     * Waits for an event ({@code EVENT <text>} line) that matches, looking at every event since the start, so
     * an event that came before the call counts.
     *
     * @param matcher tests the event text
     * @param timeout the longest wait
     * @return the first matching event
     * @throws DriverException with reason {@code TIMEOUT} if none arrives in time, or {@code EXITED}
     * @throws InterruptedException if interrupted while waiting
     */
    public String awaitEvent(Predicate<String> matcher, Duration timeout) throws InterruptedException {
        Objects.requireNonNull(matcher, "matcher");
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (eventSignal) {
            while (true) {
                Optional<String> match = events.stream().filter(matcher).findFirst();
                if (match.isPresent()) {
                    return match.get();
                }
                long left = deadline - System.nanoTime();
                if (exited) {
                    throw new DriverException(DriverException.Reason.EXITED, "driver " + name
                            + " ended without the event; events: " + events);
                }
                if (left <= 0) {
                    throw new DriverException(DriverException.Reason.TIMEOUT, "no matching event from driver "
                            + name + " within " + timeout + "; events: " + events);
                }
                TimeUnit.NANOSECONDS.timedWait(eventSignal, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }

    /**
     * Measures how far this JVM's {@link System#nanoTime()} is from the driver's: the value to add to a reading
     * taken in the driver to place it on this JVM's clock. It asks the driver for its {@code nanotime} a few
     * times, bracketing each answer with two readings of its own; when a driver's reading falls inside the
     * bracket both read one clock (as every JVM on Linux does: the machine's {@code CLOCK_MONOTONIC}) and the
     * answer is 0; otherwise it is the offset of the tightest bracket's midpoint, good to half its width.
     *
     * @return the offset in nanoseconds; 0 when both processes read the same monotonic clock
     * @throws DriverException if the driver does not answer
     * @throws InterruptedException if interrupted while waiting
     */
    public long clockOffsetNanos() throws InterruptedException {
        long bestWidth = Long.MAX_VALUE;
        long bestOffset = 0;
        for (int i = 0; i < 5; i++) {
            long before = System.nanoTime();
            long theirs = Long.parseLong(call("nanotime"));
            long after = System.nanoTime();
            if (theirs >= before && theirs <= after) {
                return 0;
            }
            if (after - before < bestWidth) {
                bestWidth = after - before;
                bestOffset = before + (after - before) / 2 - theirs;
            }
        }
        return bestOffset;
    }

    /**
     * Every event received so far, in order.
     *
     * @return a snapshot
     */
    public List<String> events() {
        return List.copyOf(events);
    }

    /**
     * Pauses the JVM with SIGSTOP: it runs no code and answers nothing, but its sockets stay open, like a
     * process in a long GC pause.
     *
     * @throws IllegalStateException if the process has ended
     */
    public void pause() {
        requireAlive();
        Signals.send(process.pid(), "STOP");
        paused = true;
    }

    /**
     * Resumes the JVM with SIGCONT after {@link #pause()}.
     *
     * @throws IllegalStateException if the process has ended
     */
    public void resume() {
        requireAlive();
        Signals.send(process.pid(), "CONT");
        paused = false;
    }

    /**
     * Whether the process is paused by {@link #pause()}.
     *
     * @return true while paused
     */
    public boolean isPaused() {
        return paused && process.isAlive();
    }

    /** Kills the JVM hard (SIGKILL) and waits for it to end, as a crash would. */
    public void kill() {
        KitResources.killAndWait(process, 15_000);
    }

    /**
     * Whether the process is alive (paused counts as alive).
     *
     * @return true until it ends
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * The operating-system process id.
     *
     * @return the pid
     */
    public long pid() {
        return process.pid();
    }

    /**
     * The file with the driver's standard error (its log); deleted by {@link #close()}.
     *
     * @return the log file
     */
    public Path logFile() {
        return logFile;
    }

    /**
     * Copies the log to {@code target}, e.g. to keep it after a failed test.
     *
     * @param target the file to write
     * @throws UncheckedIOException if copying fails
     */
    public void copyLogTo(Path target) {
        try {
            Path parent = target.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.copy(logFile, target, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + logFile + " to " + target, e);
        }
    }

    /** Kills the process if it is alive, waits for it to end and deletes its directory. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        kill();
        try {
            stdin.close();
        } catch (IOException e) {
            // Gone with the process.
        }
        KitResources.deleteTempDirectory(directory);
    }

    /** The name, pid and state, for test output. */
    @Override
    public String toString() {
        return "DriverProcess[" + name + " pid " + process.pid() + (paused ? " paused" : "")
                + (process.isAlive() ? "" : " ended") + "]";
    }

    private void awaitReady(Duration timeout) {
        try {
            ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            close();
            throw new DriverException(DriverException.Reason.TIMEOUT, "driver " + name + " not ready within "
                    + timeout);
        } catch (ExecutionException e) {
            String log = readLogQuietly();
            close();
            throw new DriverException(DriverException.Reason.EXITED, "driver " + name
                    + " ended before it was ready; its log:\n" + log);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting driver " + name, e);
        }
    }

    private String readLogQuietly() {
        try {
            return Files.readString(logFile, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private void readStdout() {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("EVENT ") && eventListener != null) {
                    try {
                        eventListener.accept(line.substring("EVENT ".length()));
                    } catch (RuntimeException e) {
                        LOG.warn("event listener of driver {} failed on {}", name, line, e);
                    }
                } else if (line.startsWith("EVENT ")) {
                    events.add(line.substring("EVENT ".length()));
                    synchronized (eventSignal) {
                        eventSignal.notifyAll();
                    }
                } else if (line.startsWith("READY ")) {
                    ready.complete(process.pid());
                } else if (!line.isEmpty() && Character.isDigit(line.charAt(0))) {
                    replies.add(line);
                } else {
                    LOG.debug("driver {} wrote outside the protocol: {}", name, line);
                }
            }
        } catch (IOException e) {
            // The process ended.
        } finally {
            exited = true;
            ready.completeExceptionally(new IllegalStateException("driver ended"));
            synchronized (eventSignal) {
                eventSignal.notifyAll();
            }
        }
    }

    private void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException("driver " + name + " has ended");
        }
    }

    /**
     * Settings for a {@link DriverProcess}. Each option may be set once; setting it again throws
     * {@link IllegalStateException}. Not thread-safe.
     */
    public static final class Builder {
        private final String mainClass;
        private final Set<String> set = new HashSet<>();
        private List<String> args = List.of();
        private List<String> jvmArgs = List.of();
        private String heap = "64m";
        // Null until set: this JVM's classpath and a numbered name.
        private @Nullable String classpath;
        private String extraClasspath = "";
        private @Nullable String name;
        private Duration startTimeout = Duration.ofSeconds(60);
        private @Nullable Consumer<String> eventListener;

        private Builder(String mainClass) {
            this.mainClass = mainClass;
        }

        /**
         * Program arguments for {@code main}.
         *
         * @param args the arguments
         * @return this builder
         */
        public Builder args(String... args) {
            once("args");
            this.args = List.of(args);
            return this;
        }

        /**
         * Extra JVM arguments, after the kit's own.
         *
         * @param jvmArgs e.g. {@code "-Dfoo=bar"}
         * @return this builder
         */
        public Builder jvmArgs(String... jvmArgs) {
            once("jvmArgs");
            this.jvmArgs = List.of(jvmArgs);
            return this;
        }

        /**
         * The maximum heap, as for {@code -Xmx}; default {@code "64m"}.
         *
         * @param heap e.g. {@code "128m"}
         * @return this builder
         */
        public Builder heap(String heap) {
            once("heap");
            Objects.requireNonNull(heap, "heap");
            if (!heap.matches("[0-9]+[kKmMgG]?")) {
                throw new IllegalArgumentException("heap must look like 64m: " + heap);
            }
            this.heap = heap;
            return this;
        }

        /**
         * The child's classpath; default this JVM's {@code java.class.path}.
         *
         * @param classpath a classpath string
         * @return this builder
         */
        public Builder classpath(String classpath) {
            once("classpath");
            this.classpath = Objects.requireNonNull(classpath, "classpath");
            return this;
        }

        /**
         * Entries added after the child's classpath (this JVM's, or the one given to {@link #classpath}): the jars
         * of a library that only the child uses.
         *
         * @param entries classpath entries separated by {@link java.io.File#pathSeparator}; empty adds none
         * @return this builder
         */
        public Builder appendClasspath(String entries) {
            once("appendClasspath");
            this.extraClasspath = Objects.requireNonNull(entries, "entries");
            return this;
        }

        /**
         * A short name for thread names, logs and {@code -Dbaton.kit.driver}; default {@code d<n>}.
         *
         * @param name one word
         * @return this builder
         */
        public Builder name(String name) {
            once("name");
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * How long to wait for the driver's {@code READY}; default 60 s.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder startTimeout(Duration timeout) {
            once("startTimeout");
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("startTimeout must be positive: " + timeout);
            }
            this.startTimeout = timeout;
            return this;
        }

        /**
         * Hands each event ({@code EVENT <text>} line) to {@code listener} on the driver's reader thread, as it
         * arrives, instead of keeping it: for long runs with many events. {@link #awaitEvent} and
         * {@link #events()} then see none.
         *
         * @param listener called with each event's text; it must be quick and must not call this driver
         * @return this builder
         */
        public Builder eventListener(Consumer<String> listener) {
            once("eventListener");
            this.eventListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Starts the JVM and waits until the driver says {@code READY}.
         *
         * @return the running driver
         * @throws DriverException if it ends or is not ready within the start timeout (it is then closed)
         * @throws UncheckedIOException if the process cannot be started
         */
        public DriverProcess start() {
            DriverProcess driver = new DriverProcess(this);
            driver.awaitReady(startTimeout);
            return driver;
        }

        private void once(String option) {
            if (!set.add(option)) {
                throw new IllegalStateException(option + " was already set");
            }
        }
    }
}
