package dev.baton.recipes.barriers;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import dev.baton.internal.Futures;
import dev.baton.internal.Requests;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;

/**
 * A barrier that holds processes back while its node exists: {@link #setBarrier()} creates the node,
 * {@link #removeBarrier()} deletes it, and {@link #waitOnBarrier()} blocks until it is gone. Wire-compatible with
 * Apache Curator's {@code DistributedBarrier} on the same path (the barrier is the persistent node at the path).
 *
 * <pre>{@code
 * DistributedBarrier barrier = new DistributedBarrier(client, "/jobs/nightly/hold");
 * barrier.setBarrier();                               // the coordinator closes the gate
 * ...
 * if (barrier.waitOnBarrier(5, TimeUnit.MINUTES)) {   // workers wait for the gate to open
 *     runJob();
 * }
 * barrier.waitOnBarrierAsync().thenRun(this::runJob); // or wait without a thread
 * ...
 * barrier.removeBarrier();                            // the coordinator opens it; every waiter wakes
 * }</pre>
 *
 * <p>Every operation has a blocking form and a {@link CompletableFuture} form ({@code ...Async}). A wait is
 * driven by a data watch on the barrier node; the barrier has no thread of its own, and
 * {@link #waitOnBarrierAsync()} holds none while waiting (a blocking wait holds only its caller). A waiter re-reads
 * the node after every event (including connection events), so it finishes only once the node is really gone. A
 * wait that times out, is interrupted or is cancelled removes its watch: from this client, and from the server
 * unless another wait of this process on the same node still needs it.
 *
 * <p>Futures complete on ZooKeeper's event thread (or the client's scheduler thread after a retry): dependent
 * stages that block should use an {@code ...Async} stage with an executor. Thread-safe: any number of threads
 * and futures may wait on one instance.
 */
public final class DistributedBarrier {
    private final BatonClient client;
    private final String barrierPath;

    /**
     * @param client the client
     * @param barrierPath the barrier node's path
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public DistributedBarrier(BatonClient client, String barrierPath) {
        this.client = Objects.requireNonNull(client, "client");
        this.barrierPath = BatonPaths.validate(Objects.requireNonNull(barrierPath, "barrierPath"));
    }

    /**
     * Sets the barrier: creates its node (and missing parents, as container nodes). Setting a barrier that is
     * already set does nothing.
     *
     * @throws KeeperException if ZooKeeper fails the create, such as
     *         {@link KeeperException.ConnectionLossException} when retries ran out
     * @throws InterruptedException if interrupted while waiting
     */
    public void setBarrier() throws KeeperException, InterruptedException {
        Failures.await(set(true));
    }

    /**
     * Sets the barrier as {@link #setBarrier()} does, without holding a thread while waiting.
     *
     * @return a future that completes once the barrier is set (also when it was set already), or fails with the
     *         {@link KeeperException} ZooKeeper answered, such as {@link KeeperException.ConnectionLossException}
     *         when retries ran out, or with {@link IllegalStateException} if the client is not started or is closed
     */
    public CompletableFuture<Void> setBarrierAsync() {
        return Failures.unwrapped(set(false));
    }

    private CompletableFuture<Void> set(boolean blocking) {
        return Requests.send(blocking, client.create().creatingParentContainersIfNeeded(), barrierPath)
                .handle((created, error) -> {
                    if (error != null && Failures.code(error) != KeeperException.Code.NODEEXISTS) {
                        throw Failures.asCompletion(error);
                    }
                    return null; // created, or set already: what the caller wants
                });
    }

    /**
     * Removes the barrier, waking every waiter. Removing a barrier that is not set does nothing.
     *
     * @throws KeeperException if ZooKeeper fails the delete
     * @throws InterruptedException if interrupted while waiting
     */
    public void removeBarrier() throws KeeperException, InterruptedException {
        Failures.await(remove(true));
    }

    /**
     * Removes the barrier as {@link #removeBarrier()} does, without holding a thread while waiting.
     *
     * @return a future that completes once the barrier node is deleted (also when it was not set), or fails with
     *         the {@link KeeperException} ZooKeeper answered, such as
     *         {@link KeeperException.ConnectionLossException} when retries ran out, or with
     *         {@link IllegalStateException} if the client is not started or is closed
     */
    public CompletableFuture<Void> removeBarrierAsync() {
        return Failures.unwrapped(remove(false));
    }

    private CompletableFuture<Void> remove(boolean blocking) {
        return Requests.send(blocking, client.delete().quietly(), barrierPath);
    }

    /**
     * Blocks until the barrier is removed (returns at once if it is not set).
     *
     * @throws KeeperException if the barrier node cannot be read, such as
     *         {@link KeeperException.ConnectionLossException} when the connection stays down
     * @throws InterruptedException if interrupted while waiting
     */
    public void waitOnBarrier() throws KeeperException, InterruptedException {
        await(Deadline.NONE);
    }

    /**
     * Blocks until the barrier is removed or the time runs out.
     *
     * @param maxWait how long to wait, {@code >= 0}
     * @param unit the unit of {@code maxWait}
     * @return true if the barrier is not set (any more), false if the time ran out
     * @throws KeeperException if the barrier node cannot be read
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws NullPointerException if {@code unit} is null
     */
    public boolean waitOnBarrier(long maxWait, TimeUnit unit) throws KeeperException, InterruptedException {
        return await(Deadline.after(maxWait, unit, "maxWait"));
    }

    /**
     * Waits for the barrier to be removed without holding a thread: a data watch on the barrier node drives the
     * wait, and the node is read again after every event, so the future completes only once the node is really
     * gone (at once, after one read, if the barrier is not set). For a time limit, use
     * {@link CompletableFuture#orTimeout} or {@link CompletableFuture#completeOnTimeout} on the returned future.
     *
     * <p>Cancelling the future (or completing it by any other means) gives the wait up and removes its watch: from
     * this client, and from the server unless another wait of this process on the same node still needs it.
     *
     * @return a future that completes (with null) once the barrier node does not exist; or fails with the
     *         {@link KeeperException} of a read that failed, such as {@link KeeperException.ConnectionLossException}
     *         when the connection stays down past the client's retries, or with {@link IllegalStateException} if
     *         the client is not started or is closed. It completes on ZooKeeper's event thread, as a rule (see
     *         the class comment).
     */
    public CompletableFuture<Void> waitOnBarrierAsync() {
        Wait wait = new Wait();
        wait.read(false);
        return wait.result;
    }

    /** A blocking wait: the first read on the caller's thread, then a wait for the same machinery's outcome. */
    private boolean await(Deadline deadline) throws KeeperException, InterruptedException {
        Wait wait = new Wait();
        // The first read as a blocking call: an unset barrier costs no thread switch, and a caller on ZooKeeper's
        // event thread still gets its answer.
        wait.read(true);
        if (!wait.result.isDone() && client.isEventThread()) {
            wait.timeUp(); // removes the watch
            Requests.requireNotEventThread(client, "wait on the barrier " + barrierPath);
        }
        try {
            try {
                if (deadline.isTimed()) {
                    wait.result.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
                } else {
                    wait.result.get();
                }
            } catch (TimeoutException e) {
                wait.timeUp();
                wait.result.get(); // a read in flight has the last word; otherwise ended (cancelled) by timeUp
            }
            return true;
        } catch (CancellationException e) {
            return false; // the time ran out; the wait removed its watch
        } catch (InterruptedException e) {
            wait.result.cancel(false); // gives the wait up and removes its watch
            throw e;
        } catch (ExecutionException e) {
            throw Failures.rethrow(e);
        }
    }

    /** {@return the barrier node's path} */
    public String getPath() {
        return barrierPath;
    }

    @Override
    public String toString() {
        return "DistributedBarrier[" + barrierPath + "]";
    }

    /**
     * One wait for the barrier node to go, blocking or not: read the node with a watch; if it exists, wait for an
     * event (any event, connection events included: none is taken as progress) and read again. The outcome is
     * {@link #result}: completed when the node is gone, failed when a read fails, cancelled when the wait is given
     * up (by the caller, or by {@link #timeUp()}). The watch is accounted for in a {@link WatchScope} and removed
     * when the wait is given up.
     */
    private final class Wait implements Watcher {
        final CompletableFuture<Void> result = new CompletableFuture<>();
        private final WatchScope watches = new WatchScope(client, this);
        /** A read is in flight: its answer decides what comes next. */
        @GuardedBy("this")
        private boolean reading;
        /** An event arrived while reading: the answer may be stale, so read again. */
        @GuardedBy("this")
        private boolean eventWhileReading;
        /** The blocking caller's time ran out: the next answer that finds the node gives the wait up. */
        @GuardedBy("this")
        private boolean timedOut;
        /** The watches are accounted for: nothing more happens. */
        @GuardedBy("this")
        private boolean ended;

        Wait() {
            // Completed by anyone but this wait (cancel, or a caller's own complete/orTimeout): give up.
            Futures.whenDone(result, (v, e) -> giveUp());
        }

        /** Starts a read unless one is in flight (its answer decides) or the wait is over. */
        void read(boolean blocking) {
            synchronized (this) {
                if (reading || ended || timedOut || result.isDone()) {
                    return;
                }
                reading = true;
            }
            send(blocking);
        }

        /** Sends the read; {@code reading} is true and stays so until {@link #answer} has decided. */
        private void send(boolean blocking) {
            synchronized (this) {
                eventWhileReading = false;
                watches.watching(barrierPath, Watcher.WatcherType.Data);
            }
            // getData, not exists: on a missing node it leaves no watch behind.
            Futures.whenDone(Requests.send(blocking, client.getData().usingWatcher(this), barrierPath),
                    (data, error) -> answer(error));
        }

        /** What a read found decides: wait for the watch, read again, or end. */
        private void answer(@Nullable Throwable error) {
            KeeperException.Code code = error == null ? null : Failures.code(error);
            boolean again = false;
            synchronized (this) {
                if (error == null && !result.isDone() && !timedOut) {
                    if (!eventWhileReading) {
                        reading = false;
                        return; // set: wait for the watch
                    }
                    again = true; // an event came while reading: the answer may be stale
                } else {
                    reading = false;
                    ended = true;
                }
            }
            if (again) {
                send(false);
                return;
            }
            watches.close(code != KeeperException.Code.NONODE); // a read that found no node left no watch
            if (error == null) {
                result.cancel(false); // the time ran out (or the caller gave up already)
            } else if (code == KeeperException.Code.NONODE) {
                result.complete(null);
            } else {
                result.completeExceptionally(Failures.unwrap(error));
            }
        }

        @Override
        public void process(WatchedEvent event) {
            synchronized (this) {
                if (reading) {
                    eventWhileReading = true;
                    return;
                }
            }
            read(false);
        }

        /** The blocking caller's time ran out: end now, unless a read in flight has the last word. */
        void timeUp() {
            synchronized (this) {
                timedOut = true;
                if (reading || ended) {
                    return;
                }
            }
            result.cancel(false); // giveUp() ends the wait
        }

        /** The result is complete: unless a read in flight will see to it, end the wait and remove its watch. */
        private void giveUp() {
            synchronized (this) {
                if (ended || reading) {
                    return;
                }
                ended = true;
            }
            watches.close(true);
        }
    }
}
