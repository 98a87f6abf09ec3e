package dev.baton.bench;

import org.apache.zookeeper.KeeperException;

/**
 * {@code sync-create-delete}: blocking create of one node, then blocking delete of it, in a loop. One op is the
 * pair, so a client that adds nothing sends 2 requests per op.
 */
final class SyncCreateDeleteScenario implements Scenario {

    @Override
    public String name() {
        return "sync-create-delete";
    }

    @Override
    public String description() {
        return "blocking create + delete of one node in a loop; 1 op = create + delete";
    }

    @Override
    public void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
        String path = run.basePath() + "/node";
        byte[] data = run.data();
        Latencies latencies = run.latencies();
        for (int i = 0; run.more(i); i++) {
            long start = System.nanoTime();
            client.create(path, data);
            client.delete(path);
            latencies.add(System.nanoTime() - start);
        }
    }
}
