package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;

/** Runs the {@code baton} command in-process and captures what it prints. */
final class Cli {

    private Cli() {
    }

    /** The outcome of one run: exit code, standard output and error output (ours and picocli's). */
    record Result(int exitCode, String out, String err) {
        List<String> outLines() {
            return out.lines().toList();
        }

        /**
         * Checks that the demo's story was told in this order: each step is a tag and a text that a later
         * timestamped line ({@code "  1.25s  tag     message"}) with that tag contains.
         *
         * @param steps tag, text, tag, text, ...
         * @return the index of the line of each step
         * @throws AssertionError naming the first step not found after the one before
         */
        List<Integer> assertStory(String... steps) {
            List<String> lines = outLines();
            List<Integer> found = new java.util.ArrayList<>();
            int from = 0;
            for (int s = 0; s < steps.length; s += 2) {
                java.util.regex.Pattern line = java.util.regex.Pattern.compile("^\\s*\\d+\\.\\d{2}s  "
                        + java.util.regex.Pattern.quote(steps[s]) + "\\s.*");
                int at = -1;
                for (int i = from; i < lines.size() && at < 0; i++) {
                    at = line.matcher(lines.get(i)).matches() && lines.get(i).contains(steps[s + 1]) ? i : -1;
                }
                if (at < 0) {
                    throw new AssertionError("no line '" + steps[s] + " ... " + steps[s + 1] + "' after line " + from
                            + " in:\n" + this);
                }
                found.add(at);
                from = at + 1;
            }
            return found;
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    /** A command running on a thread of its own, for commands that run until interrupted. */
    static final class Running {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();
        private final Thread thread;
        private volatile int exitCode = -1;

        private Running(String... args) {
            thread = new Thread(() -> {
                try (PrintStream o = new PrintStream(out, true, UTF_8); PrintStream e = new PrintStream(err, true,
                        UTF_8)) {
                    CommandLine cmd = new CommandLine(new BatonCommand(o, e));
                    cmd.setOut(new PrintWriter(o, true));
                    cmd.setErr(new PrintWriter(e, true));
                    exitCode = cmd.execute(args);
                }
            }, "baton-cli-test");
            thread.start();
        }

        /** @return what it has printed so far */
        String out() {
            synchronized (out) {
                return out.toString(UTF_8);
            }
        }

        /** Interrupts the command (as Ctrl-C would end it) and waits for it to end. */
        Result stop() throws InterruptedException {
            thread.interrupt();
            thread.join(30_000);
            if (thread.isAlive()) {
                throw new AssertionError("the command did not end when interrupted:\n" + out());
            }
            return new Result(exitCode, out(), err.toString(UTF_8));
        }
    }

    /** Starts the command on a thread of its own; see {@link Running#stop()}. */
    static Running start(String... args) {
        return new Running(args);
    }

    static Result baton(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        StringWriter picocliOut = new StringWriter();
        StringWriter picocliErr = new StringWriter();
        int code;
        try (PrintStream o = new PrintStream(out, true, UTF_8); PrintStream e = new PrintStream(err, true, UTF_8)) {
            CommandLine cmd = new CommandLine(new BatonCommand(o, e));
            cmd.setOut(new PrintWriter(picocliOut, true));
            cmd.setErr(new PrintWriter(picocliErr, true));
            code = cmd.execute(args);
        }
        return new Result(code, out.toString(UTF_8) + picocliOut, err.toString(UTF_8) + picocliErr);
    }
}
