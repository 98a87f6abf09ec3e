package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.listen.Listenable;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;

/**
 * A mutex that is not re-entrant and may be released by any thread of the process that acquired it: an
 * {@link InterProcessSemaphoreV2} with one lease. Wire-compatible with Apache Curator's
 * {@code InterProcessSemaphoreMutex} on the same path (nodes {@code <path>/leases/_c_<uuid>-lease-<seq>}, and
 * Curator's inner mutex at {@code <path>/locks}).
 *
 * <pre>{@code
 * InterProcessSemaphoreMutex lock = new InterProcessSemaphoreMutex(client, "/locks/batch");
 * lock.acquire();
 * executor.execute(() -> {
 *     try {
 *         runBatch(lock.fencingToken().getAsLong());
 *     } finally {
 *         lock.release(); // another thread may release it
 *     }
 * });
 * }</pre>
 *
 * <p>Not re-entrant: an instance that holds the lock and acquires it again waits (until another thread releases
 * it, or the timed form gives up), as Curator's does. Thread-safe; no thread of its own.
 */
public final class InterProcessSemaphoreMutex implements InterProcessLock {
    private final InterProcessSemaphoreV2 semaphore;
    private final AtomicReference<Lease> lease = new AtomicReference<>();

    /**
     * @param client the client
     * @param path the lock's path
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public InterProcessSemaphoreMutex(BatonClient client, String path) {
        this.semaphore = new InterProcessSemaphoreV2(client, path, 1);
    }

    @Override
    public void acquire() throws KeeperException, InterruptedException {
        took(semaphore.acquire());
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws KeeperException, InterruptedException {
        Lease got = semaphore.acquire(time, unit);
        if (got == null) {
            return false;
        }
        took(got);
        return true;
    }

    /**
     * Acquires without holding a thread while waiting; completing the returned future with {@code false} gives
     * the attempt up.
     *
     * @return completes with true once acquired
     */
    public CompletableFuture<Boolean> acquireAsync() {
        CompletableFuture<Lease> attempt = semaphore.acquireAsync();
        CompletableFuture<Boolean> acquired = new CompletableFuture<>();
        Futures.whenDone(attempt, (got, error) -> {
            if (error != null) {
                acquired.completeExceptionally(Failures.unwrap(error));
            } else if (got == null) {
                acquired.complete(false);
            } else {
                took(got);
                if (!acquired.complete(true)) { // given up just as it arrived
                    if (lease.compareAndSet(got, null)) {
                        got.close();
                    }
                }
            }
        });
        Futures.whenDone(acquired, (ok, error) -> {
            if (Boolean.FALSE.equals(ok)) {
                attempt.complete(null);
            }
        });
        return acquired;
    }

    private void took(Lease got) {
        Lease old = lease.getAndSet(got);
        if (old != null) {
            old.close(); // a hold lost earlier and never released
        }
    }

    /**
     * Releases the lock; any thread of the process may call it.
     *
     * @throws IllegalMonitorStateException if this instance does not hold the lock
     */
    @Override
    public void release() {
        Lease held = lease.getAndSet(null);
        if (held == null) {
            throw new IllegalMonitorStateException("the lock " + semaphore.getPath() + " is not acquired");
        }
        held.close();
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        Lease held = lease.get();
        return held != null && held.isHeld();
    }

    @Override
    public OptionalLong fencingToken() {
        Lease held = lease.get();
        return held == null ? OptionalLong.empty() : held.fencingToken();
    }

    @Override
    public Duration safeFor() {
        Lease held = lease.get();
        return held == null ? Duration.ZERO : held.safeFor();
    }

    /** {@return what the holder may assume now; empty when not acquired} */
    public java.util.Optional<HoldState> holdState() {
        return java.util.Optional.ofNullable(lease.get()).map(Lease::state);
    }

    @Override
    public Listenable<HoldListener> getHoldListenable() {
        return semaphore.getHoldListenable();
    }

    /**
     * {@return the lease node names in queue order; the first holds the lock}
     *
     * @throws KeeperException if the nodes cannot be read
     * @throws InterruptedException if interrupted while waiting
     */
    public java.util.Collection<String> getParticipantNodes() throws KeeperException, InterruptedException {
        return semaphore.getParticipantNodes();
    }

    /** {@return the lock's path} */
    public String getPath() {
        return semaphore.getPath();
    }

    @Override
    public String toString() {
        return "InterProcessSemaphoreMutex[" + semaphore.getPath() + ", " + Objects.toString(lease.get()) + "]";
    }
}
