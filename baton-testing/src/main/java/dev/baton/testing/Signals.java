package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Sends POSIX signals to child processes with the {@code kill} command (Java has no API for SIGSTOP). */
final class Signals {

    private Signals() {
    }

    /**
     * Sends {@code SIG<name>} to process {@code pid} and waits for {@code kill} to finish.
     *
     * @param name the signal without its {@code SIG} prefix: {@code "STOP"}, {@code "CONT"}
     * @throws IllegalStateException if {@code kill} fails (e.g. the process is gone)
     * @throws UncheckedIOException if {@code kill} cannot be run
     */
    static void send(long pid, String name) {
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
