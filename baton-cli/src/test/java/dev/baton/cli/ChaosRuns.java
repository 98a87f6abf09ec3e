package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.testing.RandomFaults.FaultKind;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Runs a chaos run for the chaos tests: its story to the test's output as it happens, and kept for assertions. */
final class ChaosRuns {

    /**
     * Every kind but an operator's (the upgrade needs a target line; a restart and a reconfiguration have a test of
     * their own, and a reconfigured ensemble cannot have the peer faults), in the order the seeds' draws were
     * chosen for.
     */
    static final List<FaultKind> RANDOM_KINDS = Stream.of(FaultKind.values())
            .filter(k -> k != FaultKind.ROLLING_UPGRADE && k != FaultKind.ROLLING_RESTART
                    && k != FaultKind.RECONFIGURE).toList();

    /** The kinds that reach one embedded server. */
    static final List<FaultKind> EMBEDDED_KINDS = RANDOM_KINDS.stream().filter(k -> !k.needsEnsemble()).toList();

    private ChaosRuns() {
    }

    /** A finished run: its report and everything it printed, verdict included. */
    record Run(ChaosReport report, String text) {
    }

    /**
     * Runs {@code settings}, keeping the history (and each client's log next to it) in
     * {@code target/chaos/<name>.history} for a post-mortem.
     */
    static Run run(String name, ChaosRun.Settings settings) throws InterruptedException {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(new Tee(System.out, captured), true, UTF_8);
        ChaosReport report = new ChaosRun(settings, out).run(Path.of("target", "chaos", name + ".history"));
        ChaosReport.print(report, out);
        return new Run(report, captured.toString(UTF_8));
    }

    /** Writes to two streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public synchronized void write(byte[] bytes, int off, int len) throws java.io.IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }
    }
}
