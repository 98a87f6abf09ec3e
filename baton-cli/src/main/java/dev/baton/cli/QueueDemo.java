package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.recipes.queue.DistributedQueue;
import dev.baton.recipes.queue.QueueBuilder;
import dev.baton.recipes.queue.QueueConsumer;
import dev.baton.retry.ExponentialBackoffRetry;
import dev.baton.state.ConnectionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Two producers and three consumers on one queue with a lock path; one consumer dies (its session ends) in the
 * middle of a job, and the job it held is seen delivered to another consumer: at least once, never lost.
 */
final class QueueDemo implements Demo {

    static final String PATH = "/demo-queue/jobs";
    static final String LOCKS = "/demo-queue/locks";
    private static final int JOBS_EACH = 5;
    private static final Duration WORK = Duration.ofMillis(300);
    private static final String VICTIM = "carol";

    @Override
    public String name() {
        return "queue";
    }

    @Override
    public String description() {
        return "two producers, three consumers with a lock path; one dies mid-job and its job goes to another";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        Map<String, List<String>> doneBy = new ConcurrentHashMap<>();
        CountDownLatch allDone = new CountDownLatch(2 * JOBS_EACH);
        CountDownLatch victimHolds = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        ctx.closeOnExit(end::countDown);
        String[] victimJob = {null};
        List<BatonClient> consumers = new ArrayList<>();
        for (String name : List.of("alice", "bob", VICTIM)) {
            BatonClient client = connect(ctx);
            consumers.add(client);
            QueueConsumer<String> consumer = new QueueConsumer<>() {
                @Override
                public void consumeMessage(String job) throws InterruptedException {
                    ctx.log("take", "%s takes %s", name, job);
                    if (name.equals(VICTIM) && victimJob[0] == null) {
                        victimJob[0] = job;
                        victimHolds.countDown();
                        end.await(); // dies before it finishes
                        return;
                    }
                    ctx.pause(WORK);
                    ctx.log("done", "%s finished %s", name, job);
                    List<String> by = doneBy.computeIfAbsent(job, j -> new CopyOnWriteArrayList<>());
                    by.add(name);
                    if (by.size() == 1) {
                        allDone.countDown();
                    }
                }

                @Override
                public void stateChanged(BatonClient c, ConnectionState newState) {
                }
            };
            DistributedQueue<String> queue = ctx.closeOnExit(QueueBuilder.builder(client, consumer, Utf8Text.SERIALIZER, PATH)
                    .lockPath(LOCKS).finalFlushTime(0, TimeUnit.SECONDS).buildQueue());
            queue.start();
        }
        ctx.log("queue", "%s, lock path %s: alice, bob and %s consume", PATH, LOCKS, VICTIM);
        List<String> jobs = new ArrayList<>();
        for (String producer : List.of("p1", "p2")) {
            BatonClient client = connect(ctx);
            DistributedQueue<String> queue = ctx.closeOnExit(
                    QueueBuilder.builder(client, null, Utf8Text.SERIALIZER, PATH).putInBackground(false).buildQueue());
            queue.start();
            for (int i = 1; i <= JOBS_EACH; i++) {
                String job = producer + "-job-" + i;
                queue.put(job);
                jobs.add(job);
            }
            ctx.log("put", "%s put %d jobs", producer, JOBS_EACH);
        }
        if (!victimHolds.await(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            throw new DemoException(VICTIM + " never took a job");
        }
        ctx.log("crash", "%s dies holding %s: its session ends, and its lock node with it", VICTIM, victimJob[0]);
        consumers.get(2).close();

        if (!allDone.await(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            List<String> missing = new ArrayList<>(jobs);
            missing.removeAll(doneBy.keySet());
            throw new DemoException("jobs never finished: " + missing);
        }
        String heir = doneBy.get(victimJob[0]).get(0);
        ctx.log("queue", "%s's job %s was delivered again, to %s: all %d jobs done, none lost", VICTIM,
                victimJob[0], heir, jobs.size());
    }

    private static BatonClient connect(DemoContext ctx) throws InterruptedException, DemoException {
        BatonClient client = ctx.closeOnExit(Baton.newClient(ctx.connectString(),
                new ExponentialBackoffRetry(250, 5)));
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new DemoException("could not connect to " + ctx.connectString());
        }
        return client;
    }
}
