package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The child side of the kit's driver protocol: the main class of a client that runs in its own JVM (started by
 * {@link DriverProcess}) uses it to take commands on standard input and answer on standard output.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     DriverMain driver = DriverMain.create();
 *     driver.on("acquire", a -> { lock.acquire(); return "acquired"; })
 *           .on("release", a -> { lock.release(); return ""; });
 *     lock.addListener(... -> driver.event("lost"));
 *     driver.run();   // never returns
 * }
 * }</pre>
 *
 * <h2>Protocol</h2>
 * One line each, UTF-8, words separated by single spaces (so a word cannot hold whitespace):
 * <ul>
 *   <li>child, once at start: {@code READY <pid>};</li>
 *   <li>parent: {@code <seq> <command> [args...]}, {@code seq} increasing;</li>
 *   <li>child, for each command, in order: {@code <seq> OK [payload]} or {@code <seq> ERR <message>};</li>
 *   <li>child, at any time, from any thread: {@code EVENT <text>} ({@link #event(String)}).</li>
 * </ul>
 * Commands run one at a time on the thread that called {@link #run()}. Built in: {@code ping} (answers
 * {@code pong}), {@code pid}, {@code nanotime} (this JVM's {@link System#nanoTime()}, for
 * {@link DriverProcess#clockOffsetNanos()}), {@code quit} (answers, then ends the JVM). When standard input ends (the parent
 * closed it or died) the JVM ends too, so a driver never outlives its test. Anything else the program writes to
 * {@code System.out} is sent to standard error (the driver's log) instead, to keep the protocol clean.
 *
 * <p>Thread-safety: {@link #event(String)} may be called from any thread; configure with {@link #on} before
 * {@link #run()}.
 */
public final class DriverMain {

    /** A command handler. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Runs a command.
         *
         * @param args the words after the command name
         * @return the payload of the {@code OK} answer (empty or null for none); it must be one line
         * @throws Exception any failure, answered as {@code ERR <exception class>: <message>}
         */
        @Nullable String handle(List<String> args) throws Exception;
    }

    private final Map<String, Handler> handlers = new LinkedHashMap<>();
    private final List<Runnable> exitHooks = new ArrayList<>();
    // Keeps protocol lines whole across threads; private, so nothing outside can hold it.
    private final Object outLock = new Object();
    @GuardedBy("outLock")
    private final PrintStream protocolOut;

    private DriverMain() {
        // The real stdout carries the protocol; System.out goes to stderr from now on.
        System.out.flush();
        this.protocolOut = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        handlers.put("ping", args -> "pong");
        handlers.put("pid", args -> Long.toString(ProcessHandle.current().pid()));
        handlers.put("nanotime", args -> Long.toString(System.nanoTime()));
    }

    /**
     * Creates the driver of this JVM. Call once, from {@code main}.
     *
     * @return a driver with the built-in commands
     */
    public static DriverMain create() {
        return new DriverMain();
    }

    /**
     * Adds a command.
     *
     * @param command its name, one word
     * @param handler what it does
     * @return this driver
     * @throws IllegalStateException if the command exists already (built-ins included)
     * @throws IllegalArgumentException if the name is empty or holds whitespace
     */
    public DriverMain on(String command, Handler handler) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(handler, "handler");
        if (command.isEmpty() || command.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("a command is one word: '" + command + "'");
        }
        if (command.equals("quit") || handlers.putIfAbsent(command, handler) != null) {
            throw new IllegalStateException("command " + command + " already exists");
        }
        return this;
    }

    /**
     * Adds something to run before the JVM ends ({@code quit} or end of input), e.g. closing a client.
     *
     * @param hook run on the command thread; a failure is printed and ignored
     * @return this driver
     */
    public DriverMain onExit(Runnable hook) {
        exitHooks.add(Objects.requireNonNull(hook, "hook"));
        return this;
    }

    /**
     * Sends an event line to the parent ({@link DriverProcess#awaitEvent}). Line breaks in the text become
     * spaces.
     *
     * @param text the event, e.g. {@code "state Expired"}
     */
    public void event(String text) {
        Objects.requireNonNull(text, "text");
        println("EVENT " + oneLine(text));
    }

    /**
     * Answers {@code READY}, then reads and runs commands until {@code quit} or the end of standard input, then
     * runs the exit hooks and ends the JVM with {@code System.exit(0)}. Never returns.
     */
    public void run() {
        println("READY " + ProcessHandle.current().pid());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line; (line = in.readLine()) != null; ) {
                if (!handle(line)) {
                    break;
                }
            }
        } catch (IOException e) {
            // Standard error is the driver's log.
            System.err.println("driver: cannot read standard input; ending");
            e.printStackTrace();
        }
        for (Runnable hook : exitHooks) {
            try {
                hook.run();
            } catch (RuntimeException e) {
                System.err.println("driver: an exit hook failed; running the others");
                e.printStackTrace();
            }
        }
        synchronized (outLock) {
            protocolOut.flush();
        }
        System.exit(0);
    }

    /** Runs one command line; false after {@code quit}. */
    private boolean handle(String line) {
        String[] words = line.trim().split("\\s+", -1); // trimmed: no trailing empty word to drop
        if (words.length < 2) {
            System.err.println("driver: ignoring malformed line: " + line);
            return true;
        }
        String seq = words[0];
        String command = words[1];
        List<String> args = List.of(Arrays.copyOfRange(words, 2, words.length));
        if (command.equals("quit")) {
            println(seq + " OK");
            return false;
        }
        Handler handler = handlers.get(command);
        if (handler == null) {
            println(seq + " ERR unknown command " + command + "; known: " + handlers.keySet() + " quit");
            return true;
        }
        try {
            String payload = handler.handle(args);
            println(seq + " OK" + (payload == null || payload.isEmpty() ? "" : " " + oneLine(payload)));
        } catch (Exception | Error e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            e.printStackTrace();
            println(seq + " ERR " + e.getClass().getSimpleName() + ": " + oneLine(String.valueOf(e.getMessage())));
        }
        return true;
    }

    private void println(String line) {
        synchronized (outLock) {
            protocolOut.print(line);
            protocolOut.print('\n');
            protocolOut.flush();
        }
    }

    private static String oneLine(String text) {
        return text.replace('\n', ' ').replace('\r', ' ');
    }
}
