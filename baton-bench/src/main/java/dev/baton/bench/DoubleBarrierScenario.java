package dev.baton.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;

/**
 * {@code double-barrier}: {@link #MEMBERS} members, each on its own session, run round after round of a double
 * barrier. One op = one round on a fresh path ({@code <base>/round-<n>}, not created beforehand, as the horse race
 * does): every member enters, and once all have entered, leaves; the op ends when the last {@code leave()} has
 * returned. Rounds/s is the table's ops/s; requests per member per round is its requests/op ÷ {@link #MEMBERS}.
 *
 * <p>The members connect through a {@link FailedWriteCounter}, which counts the writes the server answered with an
 * error. They are reported as the phase {@value #FAILED_WRITES} of the requests table, per round and by
 * "{@code <op> <path kind> <code>}": kind {@code path} is the round's own node (members that find a fresh path
 * missing race to create it, whichever library), {@code ready} the barrier's {@code ready} node, {@code member} a
 * member node.
 */
final class DoubleBarrierScenario implements Scenario {

    /** Members per barrier, each with its own session. */
    static final int MEMBERS = 10;
    /** The phase under which the failed writes are reported. */
    static final String FAILED_WRITES = "failed writes";
    private static final long ROUND_SECONDS = Long.getLong("baton.bench.roundSeconds", 60);
    /**
     * Set to leave Curator out: its DistributedDoubleBarrier now and then misses a wake-up and hangs a round
     * (members stuck in enter's or leave's wait), which a smoke test cannot afford.
     */
    static final String SKIP_CURATOR_PROPERTY = "baton.bench.skipCuratorDoubleBarrier";

    /** The turn's members and their threads. */
    private static final class Members {
        final FailedWriteCounter wire;
        final List<BenchClient> sessions = new ArrayList<>();
        final ExecutorService pool = Executors.newFixedThreadPool(MEMBERS, r -> {
            Thread t = new Thread(r, "baton-bench-barrier-member");
            t.setDaemon(true);
            return t;
        });

        Members(FailedWriteCounter wire) {
            this.wire = wire;
        }
    }

    @Override
    public String name() {
        return "double-barrier";
    }

    @Override
    public String description() {
        return MEMBERS + " double-barrier members, one session each; 1 op = 1 round on a fresh path: all enter, then"
                + " all leave (ops/s = rounds/s; requests per member per round = requests/op ÷ " + MEMBERS + ";"
                + " members talk through a frame-forwarding proxy that counts failed writes, phase \""
                + FAILED_WRITES + "\")";
    }

    @Override
    public boolean supports(BenchClient client) {
        return client.hasRecipes() && !(client.name().equals("Curator") && Boolean.getBoolean(SKIP_CURATOR_PROPERTY));
    }

    /** No: its sessions go through the {@link FailedWriteCounter}, which reads plaintext. */
    @Override
    public boolean runsOverTls() {
        return false;
    }

    /** Names what a written path is, relative to the rounds under {@code base}. */
    static String pathKind(String base, String path) {
        if (!path.startsWith(base + "/")) {
            return "other";
        }
        String rest = path.substring(base.length() + 1);
        int slash = rest.indexOf('/');
        if (slash < 0) {
            return "path";
        }
        return rest.substring(slash + 1).equals("ready") ? "ready" : "member";
    }

    static int port(String connectString) {
        return Integer.parseInt(connectString.substring(connectString.lastIndexOf(':') + 1));
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        FailedWriteCounter wire;
        try {
            String base = run.basePath();
            wire = new FailedWriteCounter(port(run.connectString()), p -> pathKind(base, p));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Members members = new Members(wire);
        run.state(members);
        for (int i = 0; i < MEMBERS; i++) {
            BenchClient session = client.another();
            members.sessions.add(session);
            // Plaintext only: the wire counter reads the protocol (see runsOverTls).
            session.open(Boolean.getBoolean("baton.bench.noWire") ? run.connectString() : wire.connectString(), null);
        }
        run.awaitQuiet();
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        Members members = run.state(Members.class);
        Latencies latencies = run.latencies();
        for (int i = 0; run.more(i); i++) {
            String path = run.basePath() + "/round-" + i;
            List<BenchClient.DoubleBarrier> barriers = new ArrayList<>(MEMBERS);
            for (BenchClient session : members.sessions) {
                barriers.add(session.doubleBarrier(path, MEMBERS));
            }
            long start = System.nanoTime();
            List<Future<Void>> calls = new ArrayList<>(MEMBERS);
            for (BenchClient.DoubleBarrier barrier : barriers) {
                calls.add(members.pool.submit(() -> {
                    barrier.enter();
                    barrier.leave();
                    return null;
                }));
            }
            for (Future<Void> call : calls) {
                await(call, client.name());
            }
            latencies.add(System.nanoTime() - start);
        }
    }

    /** Waits for one member's round; rethrows what it failed with. */
    static void await(Future<?> call, String library) throws KeeperException, InterruptedException {
        try {
            call.get(ROUND_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KeeperException ke) {
                throw ke;
            }
            throw new IllegalStateException(library + ": a member failed", e.getCause());
        } catch (TimeoutException e) {
            StringBuilder stacks = new StringBuilder();
            Thread.getAllStackTraces().forEach((t, frames) -> {
                if (t.getName().startsWith("baton-bench-")) {
                    stacks.append(System.lineSeparator()).append(t.getName()).append(':');
                    for (int i = 0; i < Math.min(frames.length, 12); i++) {
                        stacks.append(System.lineSeparator()).append("    at ").append(frames[i]);
                    }
                }
            });
            throw new IllegalStateException(library + ": a member is still busy after " + ROUND_SECONDS + " s"
                    + stacks);
        }
    }

    @Override
    public void tearDown(BenchClient client, RunContext run) {
        Members members = run.state(Members.class);
        if (members == null) {
            return;
        }
        members.pool.shutdownNow();
        members.sessions.forEach(BenchClient::close);
        members.wire.close();
        run.addPhaseRequests(FAILED_WRITES, Map.of(), members.wire.failures());
    }
}
