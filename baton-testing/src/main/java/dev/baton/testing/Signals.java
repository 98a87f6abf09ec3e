package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Sends POSIX signals to child processes with the {@code kill} command (Java has no API for SIGSTOP). */
final class Signals {

    private Signals() {
    }

    /**
     * Sends {@code SIG<name>} to process {@code pid} and waits for {@code kill} to finish; for {@code STOP}, also
     * until the process is stopped.
     *
     * @param name the signal without its {@code SIG} prefix: {@code "STOP"}, {@code "CONT"}
     * @throws IllegalStateException if {@code kill} fails (e.g. the process is gone)
     * @throws UncheckedIOException if {@code kill} cannot be run
     */
    static void send(long pid, String name) {
        run(pid, name);
        if (name.equals("STOP")) {
            awaitStopped(pid);
        }
    }

    /**
     * Waits until the process is seen stopped in {@code /proc/<pid>/stat}, at most a few seconds: {@code kill}
     * returns once the signal is sent, and on a loaded machine the process may go on for a moment. Returns at
     * once where there is no {@code /proc} (or the process is gone).
     */
    private static void awaitStopped(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            String line;
            try {
                line = Files.readString(stat);
            } catch (IOException e) {
                return; // no /proc here, or the process has ended
            }
            // "pid (command) state ...": the state is the first field after the command's closing parenthesis.
            int end = line.lastIndexOf(')');
            char state = end >= 0 && end + 2 < line.length() ? line.charAt(end + 2) : 'T';
            if (state == 'T' || state == 't' || state == 'Z' || state == 'X') {
                return; // stopped (or already dead: the caller finds out)
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + pid + " to stop", e);
            }
        }
        throw new IllegalStateException("process " + pid + " did not stop within 5 s of SIGSTOP");
    }

    private static void run(long pid, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                    .redirectErrorStream(true).start();
            kill.getOutputStream().close();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + name + " " + pid + " did not finish");
            }
            if (kill.exitValue() != 0) {
                String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                throw new IllegalStateException("kill -" + name + " " + pid + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + name + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + name + " to " + pid, e);
        }
    }
}
