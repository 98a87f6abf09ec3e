package dev.baton.bench;

import org.apache.zookeeper.KeeperException;

/** {@code get-data}: blocking reads of one node's data in a loop; 1 request per op for a client that adds none. */
final class GetDataScenario implements Scenario {

    @Override
    public String name() {
        return "get-data";
    }

    @Override
    public String description() {
        return "blocking getData of one node in a loop; 1 op = one read";
    }

    @Override
    public void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        run.admin().create(path(run), run.data());
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        String path = path(run);
        int expected = run.data().length;
        Latencies latencies = run.latencies();
        for (int i = 0; run.more(i); i++) {
            long start = System.nanoTime();
            byte[] data = client.getData(path);
            latencies.add(System.nanoTime() - start);
            if (data.length != expected) {
                throw new IllegalStateException(client.name() + " read " + data.length + " bytes from " + path
                        + ", expected " + expected);
            }
        }
    }

    private static String path(RunContext run) {
        return run.basePath() + "/node";
    }
}
