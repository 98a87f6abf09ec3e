package dev.baton.recipes.locks;

import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.listen.Listenable;
import dev.baton.recipes.faults.FaultClients;
import dev.baton.testing.ClientLink;
import dev.baton.testing.DriverProcess;
import dev.baton.testing.GuardedResource;
import dev.baton.testing.History;
import dev.baton.testing.TcpProxy;
import dev.baton.testing.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * The in-process clients of a lock fault test, all closed by {@link #close()}: each behind its own
 * {@link ClientLink}, with one lock-like recipe (a mutex, either half of a read-write lock, a semaphore), and
 * what it believes (acquired, released, lost; connected or not) recorded in the test's {@link History}.
 */
final class FaultHolders implements AutoCloseable {

    /**
     * How a holder uses its recipe: one acquisition at a time, each giving an {@code H} that carries a
     * {@link Hold}.
     *
     * @param <H> what an acquisition gives: a {@link Hold}, or a {@link Lease}
     */
    interface Recipe<H> {
        /** Starts an acquisition; completing the future with null gives it up. */
        CompletableFuture<H> acquireAsync();

        /** The hold behind what an acquisition gave. */
        Hold holdOf(H acquired);

        /** The recipe's hold listeners. */
        Listenable<HoldListener> holdListenable();

        /** Whether this process believes it holds the recipe, by the recipe's own account. */
        boolean heldInThisProcess();

        /** A mutex, or either half of a read-write lock. */
        static Recipe<Hold> of(InterProcessMutex mutex) {
            return new Recipe<>() {
                @Override
                public CompletableFuture<Hold> acquireAsync() {
                    return mutex.acquireAsync();
                }

                @Override
                public Hold holdOf(Hold acquired) {
                    return acquired;
                }

                @Override
                public Listenable<HoldListener> holdListenable() {
                    return mutex.getHoldListenable();
                }

                @Override
                public boolean heldInThisProcess() {
                    return mutex.isAcquiredInThisProcess();
                }
            };
        }

        /** A semaphore, one lease per acquisition; the process holds it while a lease it took is held. */
        static Recipe<Lease> of(InterProcessSemaphoreV2 semaphore) {
            List<Lease> taken = new CopyOnWriteArrayList<>();
            return new Recipe<>() {
                @Override
                public CompletableFuture<Lease> acquireAsync() {
                    CompletableFuture<Lease> attempt = semaphore.acquireAsync();
                    attempt.thenAccept(lease -> {
                        if (lease != null) {
                            taken.add(lease);
                        }
                    });
                    return attempt; // not a copy: completing it with null must reach the semaphore
                }

                @Override
                public Hold holdOf(Lease acquired) {
                    return acquired.hold();
                }

                @Override
                public Listenable<HoldListener> holdListenable() {
                    return semaphore.getHoldListenable();
                }

                @Override
                public boolean heldInThisProcess() {
                    return taken.stream().anyMatch(Lease::isHeld);
                }
            };
        }
    }

    private final ZooKeeperEnsembleExtension zk;
    private final Duration sessionTimeout;
    private final History history;
    private final GuardedResource resource;
    private final List<Holder<?>> opened = new ArrayList<>();
    private final Supplier<ZKClientConfig> clientConfig;

    /**
     * Holders without a guarded resource ({@link Holder#use()} fails).
     *
     * @param zk the ensemble, whose links the holders use
     * @param sessionTimeout every holder's session timeout
     * @param history where the holders record what they believe
     */
    FaultHolders(ZooKeeperEnsembleExtension zk, Duration sessionTimeout, History history) {
        this(zk, sessionTimeout, history, null);
    }

    /**
     * @param zk the ensemble, whose links the holders use
     * @param sessionTimeout every holder's session timeout
     * @param history where the holders record what they believe
     * @param resource the resource the holders {@link Holder#use() use} with their fencing tokens, or null
     */
    FaultHolders(ZooKeeperEnsembleExtension zk, Duration sessionTimeout, History history, GuardedResource resource) {
        this(zk, sessionTimeout, history, resource, () -> null);
    }

    /**
     * @param zk the ensemble, whose links the holders use
     * @param sessionTimeout every holder's session timeout
     * @param history where the holders record what they believe
     * @param resource the resource the holders {@link Holder#use() use} with their fencing tokens, or null
     * @param clientConfig makes each holder's ZooKeeper client settings (TLS); null from it for none
     */
    FaultHolders(ZooKeeperEnsembleExtension zk, Duration sessionTimeout, History history, GuardedResource resource,
            Supplier<ZKClientConfig> clientConfig) {
        this.zk = zk;
        this.sessionTimeout = sessionTimeout;
        this.history = history;
        this.resource = resource;
        this.clientConfig = clientConfig;
    }

    /**
     * Opens a connected client named {@code name} behind a new link, with the recipe {@code recipe} makes for it.
     *
     * @param name the client's name in the history
     * @param lock the name under which its holds are recorded
     * @param recipe makes the client's recipe
     * @param <H> what an acquisition gives
     * @return the holder, closed by {@link #close()}
     * @throws InterruptedException if interrupted while connecting
     */
    <H> Holder<H> open(String name, String lock, Function<BatonClient, Recipe<H>> recipe)
            throws InterruptedException {
        ClientLink link = zk.newClientLink();
        History.Recorder recorder = history.recorder(name);
        BatonClient client = FaultClients.open(link, sessionTimeout, recorder, clientConfig.get());
        Holder<H> holder;
        try {
            holder = new Holder<>(name, lock, link, client, recorder, recipe.apply(client));
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        synchronized (opened) {
            opened.add(holder);
        }
        return holder;
    }

    /** Opens a holder of an {@link InterProcessMutex} on {@code path}; see {@link #open}. */
    Holder<Hold> mutex(String name, String lock, String path) throws InterruptedException {
        return open(name, lock, c -> Recipe.of(new InterProcessMutex(c, path)));
    }

    /**
     * Starts a holder in its own JVM ({@link LockDriver}), to be paused with SIGSTOP, connected through a new
     * link with the holders' session timeout. The driver and the link are closed at the end of the test.
     *
     * @param name the client's name in the history
     * @param lock the name under which its holds are recorded
     * @param recipe the driver's recipe: {@code mutex}, {@code write}, {@code read} or {@code semaphore:<max>}
     * @param path the recipe's path
     * @return the started driver, not holding anything yet
     * @throws InterruptedException if interrupted while it starts
     */
    Driven driven(String name, String lock, String recipe, String path) throws InterruptedException {
        DriverProcess driver = zk.startDriver(DriverProcess.builder(LockDriver.class).name(name));
        ClientLink link = zk.newClientLink();
        driver.call("start", link.connectString(), recipe, path, Long.toString(sessionTimeout.toMillis()));
        return new Driven(name, lock, driver, history.recorder(name));
    }

    private void requireResource() {
        if (resource == null) {
            throw new IllegalStateException("these holders guard no resource");
        }
    }

    /** Closes every holder: gives waiting attempts up, releases what is held (recorded), closes the clients. */
    @Override
    public void close() {
        List<Holder<?>> all;
        synchronized (opened) {
            all = List.copyOf(opened);
            opened.clear();
        }
        // Waiters give up first: releasing one holder must not hand the lock to a client about to close.
        all.forEach(Holder::giveUp);
        RuntimeException failure = null;
        for (Holder<?> h : all) {
            try {
                h.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * One client and its recipe. Records {@code ACQUIRED} once an acquisition completes, {@code LOST} when the
     * hold listener says so, {@code RELEASED} before a release; its connection states are recorded by
     * {@link FaultClients#open}.
     *
     * @param <H> what an acquisition gives
     */
    final class Holder<H> implements AutoCloseable {
        final String name;
        final String lock;
        final ClientLink link;
        final BatonClient client;
        final History.Recorder recorder;
        final Recipe<H> recipe;
        /** Every state the hold listener reported, in order. */
        final List<HoldState> holdStates = new CopyOnWriteArrayList<>();
        private volatile H acquired;
        private volatile CompletableFuture<H> attempt;
        private volatile CompletableFuture<H> recorded;

        private Holder(String name, String lock, ClientLink link, BatonClient client, History.Recorder recorder,
                Recipe<H> recipe) {
            this.name = name;
            this.lock = lock;
            this.link = link;
            this.client = client;
            this.recorder = recorder;
            this.recipe = recipe;
            recipe.holdListenable().addListener((h, state) -> {
                holdStates.add(state);
                if (state == HoldState.LOST) {
                    recorder.lost(lock, h.fencingToken(), "hold lost");
                }
            });
        }

        /**
         * Starts an acquisition without a thread.
         *
         * @return completes once held and recorded
         */
        CompletableFuture<H> acquire() {
            CompletableFuture<H> started = recipe.acquireAsync();
            attempt = started;
            CompletableFuture<H> done = started.thenApply(got -> {
                if (got != null) {
                    acquired = got;
                    recorder.acquired(lock, recipe.holdOf(got).fencingToken());
                }
                return got;
            });
            recorded = done;
            return done;
        }

        /** The hold of the last acquisition, or null. */
        Hold hold() {
            H got = acquired;
            return got == null ? null : recipe.holdOf(got);
        }

        /** Uses the guarded resource with the last hold's token; false if refused or nothing was acquired. */
        boolean use() {
            requireResource();
            Hold h = hold();
            return h != null && resource.use(name, h.fencingToken());
        }

        /** Releases the last hold if still held, recording it first. */
        void release() {
            Hold h = hold();
            if (h != null && h.isHeld()) {
                recorder.released(lock, h.fencingToken());
                h.release();
            }
        }

        /** The id of the server the client is connected to. */
        int serverId() {
            return FaultClients.serverId(client, link);
        }

        /**
         * Moves the client off the leader, if it is connected there, by cutting its path to the leader until it
         * has reconnected (same session) to another server. Killing its server then kills a follower: the
         * session lives on, where killing the leader would hold an election that may outlast a short session.
         */
        void avoidLeader() {
            int leader = zk.ensemble().leaderId();
            if (serverId() != leader) {
                return;
            }
            link.partition(leader, TcpProxy.Mode.DROP);
            try {
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                        .until(() -> client.isConnected() && serverId() != leader);
            } finally {
                link.heal(leader);
            }
        }

        /** Gives a waiting acquisition up; one that won just now is recorded by the time this returns. */
        void giveUp() {
            CompletableFuture<H> waiting = attempt;
            if (waiting == null) {
                return;
            }
            waiting.complete(null);
            try {
                recorded.get(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // a failed acquisition holds nothing
            }
        }

        /** Gives up waiting, releases what is held (recorded), closes the client and its link. */
        @Override
        public void close() {
            giveUp();
            release();
            client.close();
            link.close();
        }
    }

    /**
     * A holder in its own JVM (see {@link #driven}). What it believes is recorded by the test's side: it cannot
     * report while paused, so {@link #pause()} and {@link #resume()} record the pause around the signals.
     */
    final class Driven {
        final String name;
        final String lock;
        final DriverProcess driver;
        final History.Recorder recorder;
        private volatile long token = -1;

        private Driven(String name, String lock, DriverProcess driver, History.Recorder recorder) {
            this.name = name;
            this.lock = lock;
            this.driver = driver;
            this.recorder = recorder;
        }

        /** Acquires in the driver (waiting there) and records it; returns the token. */
        long acquire() throws InterruptedException {
            token = Long.parseLong(driver.call("acquire"));
            recorder.acquired(lock, token);
            return token;
        }

        /** Uses the guarded resource with the driver's token. */
        boolean use() {
            requireResource();
            return resource.use(name, token);
        }

        /** Records the pause, then stops the JVM (SIGSTOP). */
        void pause() {
            recorder.paused();
            driver.pause();
        }

        /** Continues the JVM (SIGCONT), then records it. */
        void resume() {
            driver.resume();
            recorder.resumed();
        }

        /** Waits for the driver's hold listener to report LOST, and records it. */
        void awaitLost(Duration timeout) throws InterruptedException {
            driver.awaitEvent("hold LOST"::equals, timeout);
            recorder.lost(lock, token, "hold LOST reported by the driver");
        }

        /** Runs a query of {@link LockDriver}, e.g. {@code held} or {@code safe}. */
        String call(String command) throws InterruptedException {
            return driver.call(command);
        }
    }
}
