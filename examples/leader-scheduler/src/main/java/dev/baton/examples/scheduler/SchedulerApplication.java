package dev.baton.examples.scheduler;

import dev.baton.spring.BatonLeadership;
import dev.baton.spring.LeaderOnly;
import dev.baton.spring.LeadershipGrantedEvent;
import dev.baton.spring.LeadershipRevokedEvent;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A service whose scheduled work must run on one instance at a time: run as many instances as you like, the
 * leader of {@code baton.leader.path} runs the jobs, and when it stops the next one takes over.
 *
 * <pre>{@code
 * java -cp ... dev.baton.examples.scheduler.SchedulerApplication --baton.connect-string=zk1:2181
 * }</pre>
 */
@SpringBootApplication
@EnableScheduling
public class SchedulerApplication {

    /**
     * Starts one instance.
     *
     * @param args Spring Boot's command-line arguments, such as {@code --baton.connect-string=...}
     */
    public static void main(String[] args) {
        SpringApplication.run(SchedulerApplication.class, args);
    }

    static String now() {
        return LocalTime.now(ZoneId.systemDefault()).truncatedTo(ChronoUnit.MILLIS).toString();
    }

    @Bean
    ReportJob reportJob(BatonLeadership leadership) {
        return new ReportJob(leadership);
    }

    @Bean
    BatchScheduler batchScheduler(BatonLeadership leadership) {
        return new BatchScheduler(leadership.getId());
    }

    @Bean
    LeadershipLog leadershipLog() {
        return new LeadershipLog();
    }

    /** A job on Spring's scheduler: every instance schedules it, only the leader's calls run. */
    public static class ReportJob {
        private final BatonLeadership leadership;
        private final AtomicInteger runs = new AtomicInteger();

        ReportJob(BatonLeadership leadership) {
            this.leadership = leadership;
        }

        /** Runs every second, on the leader only: prints the run and the leadership's fencing token. */
        @LeaderOnly
        @Scheduled(fixedRate = 1000)
        public void report() {
            System.out.printf("%s  %-10s  report #%d (fencing token %d)%n", now(), leadership.getId(),
                    runs.incrementAndGet(), leadership.fencingToken().orElse(-1));
        }
    }

    /**
     * Seed 003's pattern: a scheduler of its own (there a Quartz scheduler) that must run on the leader only. As a
     * {@code @LeaderOnly} {@link SmartLifecycle} it is started when leadership is granted and stopped when it is
     * revoked, also when the connection to ZooKeeper is merely suspended.
     */
    @LeaderOnly
    public static class BatchScheduler implements SmartLifecycle {
        private final String id;
        private ScheduledExecutorService executor;

        BatchScheduler(String id) {
            this.id = id;
        }

        // stop() ends the task with the executor's shutdownNow(); nothing waits for the task's future.
        @SuppressWarnings("FutureReturnValueIgnored")
        @Override
        public synchronized void start() {
            System.out.printf("%s  %-10s  batch scheduler STARTED%n", now(), id);
            executor = Executors.newSingleThreadScheduledExecutor();
            AtomicInteger batches = new AtomicInteger();
            executor.scheduleAtFixedRate(() -> System.out.printf("%s  %-10s  batch #%d%n", now(), id,
                    batches.incrementAndGet()), 1500, 1500, TimeUnit.MILLISECONDS);
        }

        @Override
        public synchronized void stop() {
            if (executor != null) {
                executor.shutdownNow();
                executor = null;
                System.out.printf("%s  %-10s  batch scheduler STOPPED%n", now(), id);
            }
        }

        @Override
        public synchronized boolean isRunning() {
            return executor != null;
        }
    }

    /** Prints the leadership events. */
    public static class LeadershipLog {
        /**
         * Prints a new leadership.
         *
         * @param event the leadership granted to this instance
         */
        @EventListener
        public void granted(LeadershipGrantedEvent event) {
            System.out.printf("%s  %-10s  LEADER of %s (fencing token %d)%n", now(), event.id(), event.path(),
                    event.fencingToken());
        }

        /**
         * Prints the end of a leadership.
         *
         * @param event the leadership this instance lost or gave up
         */
        @EventListener
        public void revoked(LeadershipRevokedEvent event) {
            System.out.printf("%s  %-10s  no longer leader (token %d ended)%n", now(), event.id(),
                    event.fencingToken());
        }
    }
}
