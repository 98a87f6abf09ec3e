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

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
        }
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
