package dev.baton.recipes.barriers;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.baton.BatonClient;
import dev.baton.BatonOp;
import dev.baton.Pathable;
import dev.baton.internal.Failures;
import dev.baton.internal.Requests;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * One {@code enter} or {@code leave} of a {@link DistributedDoubleBarrier}, blocking or not: the waiting part of
 * the barrier. In blocking mode every request runs on the caller's thread and every wait sleeps on a
 * {@link Signal} until an event or the deadline, so each step's future is complete when it is returned and the
 * composition runs inline, like straight-line code. Otherwise requests are sent with {@code forPathAsync} and a
 * wait is a future the next event (or giving up) completes; no thread waits. An asynchronous call is given up by
 * its time limit or its caller through {@link #giveUp()}: as a blocking call's deadline, this takes effect at the
 * call's next wait.
 *
 * <p>Also the small future helpers the barrier's steps are written with.
 */
abstract class BarrierCall {
    final BatonClient client;
    final boolean blocking;
    /** When a blocking call's waits give up; asynchronous calls are given up through {@link #giveUp()}. */
    final Deadline deadline;
    /** The signals of this call's waits, so that giving up wakes them. */
    @GuardedBy("signals")
    private final List<Signal> signals = new ArrayList<>();
    @GuardedBy("signals")
    private boolean givenUp;

    BarrierCall(BatonClient client, boolean blocking, Deadline deadline) {
        this.client = client;
        this.blocking = blocking;
        this.deadline = deadline;
    }

    /** Runs the call: its future gives true when it got through, false when it was given up. */
    abstract CompletableFuture<Boolean> run();

    /** Undoes a call that got through after its caller had given it up. */
    abstract void takeBack();

    Signal newSignal() {
        Signal signal = new Signal();
        boolean gone;
        synchronized (signals) {
            signals.add(signal);
            gone = givenUp;
        }
        if (gone) {
            signal.giveUp();
        }
        return signal;
    }

    /** Gives the call up: its current or next wait ends as if the time ran out. */
    void giveUp() {
        List<Signal> waking;
        synchronized (signals) {
            givenUp = true;
            waking = new ArrayList<>(signals);
        }
        waking.forEach(Signal::giveUp);
    }

    /** Waits for an event on {@code signal} after {@code mark}: true if one came, false if given up. */
    CompletableFuture<Boolean> await(Signal signal, int mark) {
        if (!blocking) {
            return signal.next(mark);
        }
        try {
            return CompletableFuture.completedFuture(signal.await(mark, deadline));
        } catch (InterruptedException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    <T> CompletableFuture<T> send(Pathable<T> request, String path) {
        return Requests.send(blocking, request, path);
    }

    CompletableFuture<Void> send(List<BatonOp> operations) {
        return Requests.send(blocking, client.transaction(), operations).thenApply(results -> null);
    }

    /** A future sent ahead (pipelined): a blocking call waits for it here, so that it goes on inline. */
    <T> CompletableFuture<T> settle(CompletableFuture<T> sent) {
        if (!blocking || sent.isDone()) {
            return sent;
        }
        try {
            return CompletableFuture.completedFuture(Failures.await(sent));
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Watches a node that is expected to go away (a marker, a member), if it is still there: with getData, not
     * exists, because exists on a node already gone leaves a watch for its creation, which never comes.
     *
     * @return whether the node was there (and is now watched)
     */
    CompletableFuture<Boolean> watchIfPresent(String node, Watcher watcher) {
        return then(send(client.getData().usingWatcher(watcher), node), (data, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(true);
            }
            if (Failures.code(error) == KeeperException.Code.NONODE) {
                return CompletableFuture.completedFuture(false);
            }
            return failed(error);
        });
    }

    // ---------------------------------------------------------------- future helpers of the barrier's steps

    static <T> CompletableFuture<T> outcome(T value) {
        return CompletableFuture.completedFuture(value);
    }

    /** Another round of a {@code Requests.repeat}. */
    static CompletableFuture<Boolean> again() {
        return CompletableFuture.completedFuture(null);
    }

    static CompletableFuture<Void> done() {
        return CompletableFuture.completedFuture(null);
    }

    static <T> CompletableFuture<T> failed(Throwable error) {
        return CompletableFuture.failedFuture(Failures.unwrap(error));
    }

    /** What comes after {@code step}, given its value or its failure. */
    // The nested future handle gives is flattened at once by thenCompose: nothing is ignored.
    @SuppressWarnings("FutureReturnValueIgnored")
    static <T, R> CompletableFuture<R> then(CompletableFuture<T> step,
            BiFunction<? super T, Throwable, CompletableFuture<R>> next) {
        return step.handle(next).thenCompose(Function.identity());
    }
}
