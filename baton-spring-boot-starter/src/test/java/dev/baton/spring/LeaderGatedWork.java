package dev.baton.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** An application's leader-gated work, as the tests run it in several contexts at once. */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class LeaderGatedWork {

    @Bean
    Job job() {
        return new Job();
    }

    @Bean
    Worker worker() {
        return new Worker();
    }

    @Bean
    Events events() {
        return new Events();
    }

    /** A scheduled job that must run on the leader only. Proxied: read it through its methods. */
    static class Job {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @LeaderOnly
        @Scheduled(fixedDelay = 20)
        public void run() {
            runs.incrementAndGet();
        }
    }

    /** A lifecycle bean that must run on the leader only. Proxied: read it through its methods. */
    @LeaderOnly
    static class Worker implements SmartLifecycle {
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicInteger starts = new AtomicInteger();

        public int starts() {
            return starts.get();
        }

        @Override
        public void start() {
            starts.incrementAndGet();
            running.set(true);
        }

        @Override
        public void stop() {
            running.set(false);
        }

        @Override
        public boolean isRunning() {
            return running.get();
        }
    }

    /** Keeps the leadership events in order. */
    static class Events {
        final List<Object> seen = new CopyOnWriteArrayList<>();

        @EventListener
        public void granted(LeadershipGrantedEvent event) {
            seen.add(event);
        }

        @EventListener
        public void revoked(LeadershipRevokedEvent event) {
            seen.add(event);
        }
    }
}
