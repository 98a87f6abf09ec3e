package dev.baton.examples.scheduler;

import dev.baton.spring.BatonLeadership;
import dev.baton.testing.EmbeddedZooKeeper;
import dev.baton.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Runs the service three times in one JVM on an embedded ZooKeeper and takes its leaders away one by one: the
 * first is cut off from ZooKeeper as if its host had died (it stops its work as soon as it notices, after 2/3 of
 * the session timeout; the next one takes over once the server has expired its session, within the 6 s session
 * timeout, so the two never work at once), the second is shut down cleanly (the next one takes over at once).
 * Each instance reaches ZooKeeper through its own proxy, so it can be cut off alone.
 *
 * <pre>{@code
 * examples/leader-scheduler/run
 * }</pre>
 */
public final class Demo {
    private Demo() {
    }

    /**
     * Runs the demo; takes about half a minute.
     *
     * @param args the number of instances to start (default 3)
     * @throws Exception if an instance or the server fails
     */
    public static void main(String[] args) throws Exception {
        int instances = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
            List<Instance> running = new ArrayList<>();
            try {
                for (int i = 1; i <= instances; i++) {
                    running.add(Instance.start("instance-" + i, zk));
                }
                boolean crash = true;
                while (running.size() > 1) {
                    pause(Duration.ofSeconds(4));
                    Instance leader = awaitLeader(running);
                    running.remove(leader);
                    long t0 = System.nanoTime();
                    if (crash) {
                        say("cutting %s off from ZooKeeper, as if its host died".formatted(leader.id));
                        leader.proxy.partition(TcpProxy.Mode.BLACKHOLE);
                    } else {
                        say("shutting %s down".formatted(leader.id));
                        leader.close();
                    }
                    Instance next = awaitLeader(running);
                    say("%s took over after %d ms".formatted(next.id, (System.nanoTime() - t0) / 1_000_000));
                    if (crash) {
                        leader.close();
                    }
                    crash = !crash;
                }
                pause(Duration.ofSeconds(3));
            } finally {
                running.forEach(Instance::close);
            }
        }
        say("done");
    }

    private static Instance awaitLeader(List<Instance> instances) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (Instance instance : instances) {
                if (instance.leadership().isLeader()) {
                    return instance;
                }
            }
            Thread.sleep(20); // a demo polling for something to print, not a test waiting for correctness
        }
        throw new IllegalStateException("no leader among " + instances.size() + " instances after 30 s");
    }

    private static void pause(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    private static void say(String message) {
        System.out.printf("%s  %-10s  %s%n", SchedulerApplication.now(), "demo", message);
    }

    /** One instance of the service, with its own way to ZooKeeper. */
    private static final class Instance implements AutoCloseable {
        final String id;
        final TcpProxy proxy;
        final ConfigurableApplicationContext context;

        private Instance(String id, TcpProxy proxy, ConfigurableApplicationContext context) {
            this.id = id;
            this.proxy = proxy;
            this.context = context;
        }

        static Instance start(String id, EmbeddedZooKeeper zk) {
            TcpProxy proxy = TcpProxy.start(id, zk.port());
            try {
                ConfigurableApplicationContext context = new SpringApplicationBuilder(SchedulerApplication.class)
                        .properties("baton.connect-string=" + proxy.address(), "baton.leader.id=" + id)
                        .run();
                return new Instance(id, proxy, context);
            } catch (RuntimeException e) {
                proxy.close();
                throw e;
            }
        }

        BatonLeadership leadership() {
            return context.getBean(BatonLeadership.class);
        }

        @Override
        public void close() {
            try {
                context.close();
            } finally {
                proxy.close();
            }
        }
    }
}
