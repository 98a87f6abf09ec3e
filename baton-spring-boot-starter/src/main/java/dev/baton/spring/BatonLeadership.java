package dev.baton.spring;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.SerialExecutor;
import dev.baton.recipes.leader.LeaderLatch;
import dev.baton.recipes.leader.LeaderLatchListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * This application's leadership of {@code baton.leader.path}: one {@link LeaderLatch} per application, joined
 * once the context has started and left before the client closes. While this instance leads,
 * {@link LeaderOnly} methods run and {@link LeaderOnly} lifecycle beans are started; on every change a
 * {@link LeadershipGrantedEvent} or {@link LeadershipRevokedEvent} is published.
 *
 * <p>Changes are handled in order on one short-lived thread ({@code baton-leadership-N}, gone when idle), so
 * lifecycle beans and event listeners may take their time without holding up ZooKeeper's event thread.
 * {@link #isLeader()} always tells the latch's current view. Thread-safe.
 */
public final class BatonLeadership implements SmartLifecycle, DisposableBean {
    /** Late in start-up, early in shut-down: lead only once everything else runs, and step down first. */
    public static final int PHASE = Integer.MAX_VALUE - 1000;
    private static final Logger LOG = LoggerFactory.getLogger(BatonLeadership.class);
    private static final AtomicInteger IDS = new AtomicInteger();

    private final Object lock = new Object();
    private final BatonClient client;
    private final String path;
    private final String id;
    private final ApplicationEventPublisher publisher;
    private final ListableBeanFactory beans;
    private final ThreadPoolExecutor thread;
    private final Executor changes;

    @GuardedBy("lock")
    private @Nullable LeaderLatch latch;
    /** The {@link LeaderOnly} lifecycle beans, found on first use. */
    @GuardedBy("lock")
    private @Nullable List<SmartLifecycle> gated;
    // Touched only on the changes executor.
    private boolean granted;
    private long grantedToken;

    /**
     * @param client the started client
     * @param path the election's path
     * @param id this instance's id
     * @param publisher where the granted/revoked events go
     * @param beans where the {@link LeaderOnly} lifecycle beans are found
     * @throws NullPointerException if an argument is null
     */
    public BatonLeadership(BatonClient client, String path, String id, ApplicationEventPublisher publisher,
            ListableBeanFactory beans) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = Objects.requireNonNull(path, "path");
        this.id = Objects.requireNonNull(id, "id");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.beans = Objects.requireNonNull(beans, "beans");
        String name = "baton-leadership-" + IDS.incrementAndGet();
        this.thread = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        this.thread.allowCoreThreadTimeOut(true);
        this.changes = new SerialExecutor(thread);
    }

    /** {@return the election's path} */
    public String getPath() {
        return path;
    }

    /** {@return this instance's id in the election} */
    public String getId() {
        return id;
    }

    /** {@return true while this instance leads (and its connection is not suspended)} */
    public boolean isLeader() {
        synchronized (lock) {
            return latch != null && latch.hasLeadership();
        }
    }

    /** {@return the fencing token of the current leadership; empty when not leading} */
    public OptionalLong fencingToken() {
        synchronized (lock) {
            return latch == null ? OptionalLong.empty() : latch.fencingToken();
        }
    }

    /** {@return how long this instance may still act as leader without hearing from ZooKeeper; zero if not leading} */
    public Duration safeFor() {
        synchronized (lock) {
            return latch == null ? Duration.ZERO : latch.safeFor();
        }
    }

    /** Joins the election; called by the context once the other beans have started. */
    @Override
    public void start() {
        synchronized (lock) {
            if (latch != null) {
                return;
            }
            LeaderLatch joined = new LeaderLatch(client, path, id, LeaderLatch.CloseMode.NOTIFY_LEADER);
            joined.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    // Read on the latch's own thread, so the token is the one of this grant.
                    long token = joined.fencingToken().orElse(-1);
                    changes.execute(() -> grant(token));
                }

                @Override
                public void notLeader() {
                    changes.execute(BatonLeadership.this::revoke);
                }
            });
            joined.start();
            latch = joined;
            LOG.info("Joined the election at {} as {}", path, id);
        }
    }

    /**
     * Leaves the election before the client closes: the gated beans are stopped and the revoked event is
     * published first, if this instance led.
     */
    @Override
    public void stop() {
        LeaderLatch leaving;
        synchronized (lock) {
            leaving = latch;
            latch = null;
        }
        if (leaving == null) {
            return;
        }
        leaving.close();
        // Wait for the changes queued so far (the revocation among them) to be done.
        CompletableFuture<Void> drained = new CompletableFuture<>();
        changes.execute(() -> drained.complete(null));
        try {
            drained.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Leadership changes at {} did not finish in time on shutdown", path, e);
        }
    }

    @Override
    public boolean isRunning() {
        synchronized (lock) {
            return latch != null;
        }
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    private void grant(long token) {
        if (granted || !isLeader()) {
            return; // stale: leadership already went again
        }
        granted = true;
        grantedToken = token;
        LOG.info("Leadership of {} granted to {} (fencing token {})", path, id, token);
        for (SmartLifecycle bean : gated()) {
            try {
                bean.start();
            } catch (RuntimeException e) {
                LOG.error("Could not start leader-only bean {}", bean, e);
            }
        }
        publisher.publishEvent(new LeadershipGrantedEvent(path, id, token));
    }

    private void revoke() {
        if (!granted) {
            return;
        }
        granted = false;
        LOG.info("Leadership of {} revoked from {} (fencing token {})", path, id, grantedToken);
        List<SmartLifecycle> reversed = new ArrayList<>(gated());
        Collections.reverse(reversed);
        for (SmartLifecycle bean : reversed) {
            try {
                if (bean.isRunning()) {
                    bean.stop();
                }
            } catch (RuntimeException e) {
                LOG.error("Could not stop leader-only bean {}", bean, e);
            }
        }
        publisher.publishEvent(new LeadershipRevokedEvent(path, id, grantedToken));
    }

    /** The {@link LeaderOnly} lifecycle beans in phase order, found once. */
    private List<SmartLifecycle> gated() {
        synchronized (lock) {
            if (gated == null) {
                List<SmartLifecycle> found = new ArrayList<>();
                beans.getBeansOfType(SmartLifecycle.class, false, true).values().forEach(bean -> {
                    if (AnnotatedElementUtils.hasAnnotation(AopUtils.getTargetClass(bean), LeaderOnly.class)) {
                        found.add(bean);
                    }
                });
                found.sort(Comparator.comparingInt(SmartLifecycle::getPhase));
                gated = List.copyOf(found);
            }
            return gated;
        }
    }

    /** Stops the thread that handles changes; called by the context after {@link #stop()}. */
    @Override
    public void destroy() {
        thread.shutdown();
    }
}
