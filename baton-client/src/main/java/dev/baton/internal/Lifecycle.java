package dev.baton.internal;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@code LATENT → STARTED → CLOSED} lifecycle of a recipe, with the failures users see: a second
 * {@code start()}, or a call that needs a started recipe, throws an {@link IllegalStateException} naming the recipe
 * and the state it is in. Thread-safe (transitions are compare-and-set), so it may be used inside or outside the
 * recipe's own lock.
 */
public final class Lifecycle {
    /** Where a recipe is in its life. */
    public enum State {
        /** Made, not started. */
        LATENT,
        /** Started and not closed. */
        STARTED,
        /** Closed; for good. */
        CLOSED
    }

    private final String name;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    /**
     * Makes a lifecycle in the {@code LATENT} state.
     *
     * @param name how failures name the recipe, such as {@code "LeaderLatch /election"}
     */
    public Lifecycle(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * Moves from {@code LATENT} to {@code STARTED}.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        State was = state.compareAndExchange(State.LATENT, State.STARTED);
        if (was != State.LATENT) {
            throw new IllegalStateException(name + " cannot be started: it is " + was);
        }
    }

    /**
     * Moves to {@code CLOSED}, whatever the state.
     *
     * @return the state before: {@code STARTED} if this call closed a started recipe, {@code CLOSED} if it was
     *     closed already
     */
    public State close() {
        return state.getAndSet(State.CLOSED);
    }

    /**
     * Checks that the recipe is started and not closed.
     *
     * @throws IllegalStateException if not started, or closed
     */
    public void requireStarted() {
        State now = state.get();
        if (now == State.LATENT) {
            throw new IllegalStateException(name + " is " + now + ": call start() first");
        }
        if (now != State.STARTED) {
            throw new IllegalStateException(name + " is " + now);
        }
    }

    /** {@return true between {@link #start()} and {@link #close()}} */
    public boolean isStarted() {
        return state.get() == State.STARTED;
    }

    /** {@return the current state} */
    // NullAway takes every AtomicReference.get() for nullable; this one starts LATENT and is never set to null.
    @SuppressWarnings("NullAway")
    public State state() {
        return state.get();
    }

    @Override
    public String toString() {
        return name + " " + state.get();
    }
}
