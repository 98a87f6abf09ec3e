package dev.baton.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The command-line settings. Flags take their value as the next argument or after {@code =}.
 *
 * @param scenarios scenario names to run; empty for all
 * @param libraries library names to run; empty for all
 * @param ops operations per measured run
 * @param warmupOps operations per warm-up run
 * @param warmupRounds warm-up runs per adapter and scenario before measuring
 * @param rounds measured runs per adapter and scenario
 * @param slice operations an adapter runs per turn before the next adapter's turn
 * @param maxRunNanos time limit per library per round (measured or warm-up), {@code 0} for none
 * @param inFlight outstanding operations in pipelined scenarios
 * @param dataBytes bytes of data per created node
 * @param connect an external server's connect string, or null for an embedded server
 * @param ensemble servers of a local ensemble of separate JVMs to run against, or 0 for one embedded server
 * @param tls serve TLS on the embedded server's client port (certificates made for the run) and connect every
 *     client over it
 * @param latencyNanos delay added to every chunk of bytes each way between the clients and the server, 0 for none
 * @param out a file to write the report to as well, or null
 * @param chart a file to write the SVG chart to, or null for the report's file with {@code .svg} in place of its
 *     extension (no chart when there is no {@code --out} either)
 * @param help print the usage and exit
 * @param list print the scenarios and exit
 */
record BenchOptions(List<String> scenarios, List<String> libraries, int ops, int warmupOps, int warmupRounds,
        int rounds, int slice, long maxRunNanos, int inFlight, int dataBytes, String connect, int ensemble,
        boolean tls, long latencyNanos, Path out, Path chart, boolean help, boolean list) {

    static final String USAGE = """
            Usage: baton-bench/run [options]
              --scenarios A,B      scenarios to run (default: all; see --list)
              --libraries A,B      libraries: baton, curator, zookeeper (default: all three), and
                                   baton+metrics (Baton with BatonMetrics attached; only when named)
              --ops N              operations per measured run (default 3000)
              --rounds N           measured rounds; each library's median round is reported (default 3)
              --slice N            ops per turn: in a round the libraries take turns of N ops each, so
                                   load from other processes hits them alike (default 500)
              --warmup-ops N       operations per warm-up run (default: --ops)
              --warmup-rounds N    warm-up runs per library before measuring (default 1)
              --duration SECONDS   time limit per library per round, stops it short of --ops (default: none)
              --in-flight N        outstanding requests in pipelined scenarios (default 64)
              --data-bytes N       bytes of data per node (default 16)
              --connect HOST:PORT  use this server instead of an embedded one (requests/op shows n/a)
              --ensemble N         start an ensemble of N servers, each its own JVM on loopback, and run
                                   against it instead of an embedded server; clients connect to any of
                                   them, as in production (requests/op shows n/a)
              --tls                serve TLS on the embedded server's client port, with certificates made
                                   for the run (deleted after it), and connect every client over it
                                   (mutual TLS, ZooKeeper's Netty client socket); not with --ensemble or
                                   --connect, nor for the scenarios that read the plaintext protocol on a
                                   proxy of their own (double-barrier, atomic-increment)
              --latency MICROS     put a delay line in front of the server: every chunk of bytes arrives
                                   MICROS µs late, each way (a network round trip of 2 × MICROS), for
                                   every library alike (default 0: loopback only)
              --out FILE           also write the markdown report to FILE, and an SVG chart of the
                                   ratios and latencies beside it (FILE with .svg for its extension)
              --chart FILE         write the SVG chart to FILE (default: beside --out)
              --list               list the scenarios and exit
              --help               print this and exit
            """;

    BenchOptions {
        scenarios = List.copyOf(scenarios);
        libraries = List.copyOf(libraries);
        requirePositive(ops, "--ops");
        requirePositive(warmupOps, "--warmup-ops");
        requirePositive(rounds, "--rounds");
        requirePositive(slice, "--slice");
        requirePositive(inFlight, "--in-flight");
        if (warmupRounds < 0) {
            throw new IllegalArgumentException("--warmup-rounds must be >= 0: " + warmupRounds);
        }
        if (dataBytes < 0) {
            throw new IllegalArgumentException("--data-bytes must be >= 0: " + dataBytes);
        }
        if (latencyNanos < 0) {
            throw new IllegalArgumentException("--latency must be >= 0 µs: " + latencyNanos / 1_000);
        }
        if (ensemble < 0 || ensemble == 2 || ensemble > 9) {
            throw new IllegalArgumentException("--ensemble must be 1 or an odd number from 3 to 9: " + ensemble);
        }
        if (ensemble > 0 && connect != null) {
            throw new IllegalArgumentException("--ensemble and --connect exclude each other");
        }
        if (tls && connect != null) {
            throw new IllegalArgumentException("--tls and --connect exclude each other: --tls starts its own server"
                    + " with certificates made for the run");
        }
        if (tls && ensemble > 0) {
            throw new IllegalArgumentException("--tls and --ensemble exclude each other: TLS is measured on the"
                    + " embedded server only");
        }
        if (maxRunNanos < 0) {
            throw new IllegalArgumentException("--duration must be >= 0");
        }
    }

    /**
     * {@return where to write the SVG chart: {@code --chart}, else {@code --out} with {@code .svg} for its extension,
     *     else null (no chart)}
     */
    Path chartFile() {
        if (chart != null || out == null) {
            return chart;
        }
        String name = out.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return out.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".svg");
    }

    /** The defaults, as with no arguments. */
    static BenchOptions defaults() {
        return parse();
    }

    /**
     * Parses the command line.
     *
     * @throws IllegalArgumentException for an unknown flag, a missing or bad value
     */
    static BenchOptions parse(String... args) {
        List<String> scenarios = List.of();
        List<String> libraries = List.of();
        int ops = 3000;
        Integer warmupOps = null;
        int warmupRounds = 1;
        int rounds = 3;
        int slice = 500;
        long maxRunNanos = 0;
        int inFlight = 64;
        int dataBytes = 16;
        String connect = null;
        int ensemble = 0;
        boolean tls = false;
        long latencyNanos = 0;
        Path out = null;
        Path chart = null;
        boolean help = false;
        boolean list = false;
        List<String> queue = new ArrayList<>(Arrays.asList(args));
        while (!queue.isEmpty()) {
            String arg = queue.remove(0);
            String flag = arg;
            String inline = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                flag = arg.substring(0, eq);
                inline = arg.substring(eq + 1);
            }
            switch (flag) {
                case "--help", "-h" -> help = true;
                case "--list" -> list = true;
                case "--scenarios", "--scenario" -> scenarios = names(value(flag, inline, queue));
                case "--libraries", "--library" -> libraries = names(value(flag, inline, queue));
                case "--ops" -> ops = integer(flag, value(flag, inline, queue));
                case "--warmup-ops" -> warmupOps = integer(flag, value(flag, inline, queue));
                case "--warmup-rounds" -> warmupRounds = integer(flag, value(flag, inline, queue));
                case "--rounds" -> rounds = integer(flag, value(flag, inline, queue));
                case "--slice" -> slice = integer(flag, value(flag, inline, queue));
                case "--duration" -> maxRunNanos = seconds(flag, value(flag, inline, queue));
                case "--in-flight", "--inflight" -> inFlight = integer(flag, value(flag, inline, queue));
                case "--data-bytes" -> dataBytes = integer(flag, value(flag, inline, queue));
                case "--connect" -> connect = value(flag, inline, queue);
                case "--ensemble" -> ensemble = integer(flag, value(flag, inline, queue));
                case "--tls" -> tls = true;
                case "--latency" -> latencyNanos = integer(flag, value(flag, inline, queue)) * 1_000L;
                case "--out" -> out = Path.of(value(flag, inline, queue));
                case "--chart" -> chart = Path.of(value(flag, inline, queue));
                default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
            }
        }
        return new BenchOptions(scenarios, libraries, ops, warmupOps == null ? ops : warmupOps, warmupRounds, rounds,
                slice, maxRunNanos, inFlight, dataBytes, connect, ensemble, tls, latencyNanos, out, chart, help,
                list);
    }

    private static String value(String flag, String inline, List<String> queue) {
        if (inline != null) {
            return inline;
        }
        if (queue.isEmpty() || queue.get(0).startsWith("--")) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return queue.remove(0);
    }

    private static List<String> names(String value) {
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static int integer(String flag, String value) {
        try {
            return Integer.parseInt(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a whole number, got '" + value + "'");
        }
    }

    private static long seconds(String flag, String value) {
        try {
            double s = Double.parseDouble(value);
            if (s < 0 || Double.isNaN(s)) {
                throw new IllegalArgumentException(flag + " must be >= 0 seconds, got '" + value + "'");
            }
            return (long) (s * 1e9);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a number of seconds, got '" + value + "'");
        }
    }

    private static void requirePositive(int value, String flag) {
        if (value <= 0) {
            throw new IllegalArgumentException(flag + " must be > 0: " + value);
        }
    }
}
