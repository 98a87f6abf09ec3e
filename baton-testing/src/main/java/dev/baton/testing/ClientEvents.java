package dev.baton.testing;

import static dev.baton.testing.History.NO_TOKEN;

import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import java.util.Objects;

/**
 * What one client can record about itself: one method per {@link Kind} a client reports, each naming the event's
 * fields for that kind (which lock, which token, why). These are the public methods of {@link History.Recorder},
 * which binds them to a client id and a history; they live apart so that {@link History} reads as the event log
 * it is.
 */
abstract sealed class ClientEvents permits History.Recorder {

    ClientEvents() {
    }

    /** Appends an event of the recorder's client, with the given fields, to its history. */
    abstract Event append(Kind kind, String name, long token, String detail);

    /**
     * Records {@link Kind#ACQUIRED} of lock {@code lock} with {@code token}; returns the event.
     *
     * @param lock the name of the lock acquired
     * @param token the fencing token of the new hold, or {@link History#NO_TOKEN} if the lock gives none
     * @return the appended event
     */
    public Event acquired(String lock, long token) {
        return append(Kind.ACQUIRED, lock, token, "");
    }

    /**
     * Records {@link Kind#RELEASED} of lock {@code lock} (call before sending the release).
     *
     * @param lock the name of the lock about to be released
     * @param token the fencing token of the hold that ends, or {@link History#NO_TOKEN}
     * @return the appended event
     */
    public Event released(String lock, long token) {
        return append(Kind.RELEASED, lock, token, "");
    }

    /**
     * Records {@link Kind#LOST} of lock {@code lock}, with the reason.
     *
     * @param lock the name of the lock lost
     * @param token the fencing token of the hold that ends, or {@link History#NO_TOKEN}
     * @param reason why the client stopped believing, e.g. the connection state; the event's detail
     * @return the appended event
     */
    public Event lost(String lock, long token, String reason) {
        return append(Kind.LOST, lock, token, reason);
    }

    /**
     * Records {@link Kind#BECAME_LEADER} of {@code leadership} with {@code token}.
     *
     * @param leadership the name of the leadership won
     * @param token the fencing token of the new leadership, or {@link History#NO_TOKEN} if the recipe gives none
     * @return the appended event
     */
    public Event becameLeader(String leadership, long token) {
        return append(Kind.BECAME_LEADER, leadership, token, "");
    }

    /**
     * Records {@link Kind#LOST_LEADERSHIP} of {@code leadership}, with the reason.
     *
     * @param leadership the name of the leadership given up or lost
     * @param token the fencing token of the leadership that ends, or {@link History#NO_TOKEN}
     * @param reason why the client stopped believing it leads, e.g. the callback that told it; the event's detail
     * @return the appended event
     */
    public Event lostLeadership(String leadership, long token, String reason) {
        return append(Kind.LOST_LEADERSHIP, leadership, token, reason);
    }

    /**
     * Records {@link Kind#ENTER_CALLED} on barrier {@code barrier}.
     *
     * @param barrier the name of the barrier entered
     * @return the appended event
     */
    public Event enterCalled(String barrier) {
        return append(Kind.ENTER_CALLED, barrier, NO_TOKEN, "");
    }

    /**
     * Records {@link Kind#ENTER_RETURNED} on barrier {@code barrier}.
     *
     * @param barrier the name of the barrier passed
     * @return the appended event
     */
    public Event enterReturned(String barrier) {
        return append(Kind.ENTER_RETURNED, barrier, NO_TOKEN, "");
    }

    /**
     * Records {@link Kind#LEAVE_CALLED} on barrier {@code barrier}.
     *
     * @param barrier the name of the barrier left
     * @return the appended event
     */
    public Event leaveCalled(String barrier) {
        return append(Kind.LEAVE_CALLED, barrier, NO_TOKEN, "");
    }

    /**
     * Records {@link Kind#LEAVE_RETURNED} on barrier {@code barrier}.
     *
     * @param barrier the name of the barrier left
     * @return the appended event
     */
    public Event leaveReturned(String barrier) {
        return append(Kind.LEAVE_RETURNED, barrier, NO_TOKEN, "");
    }

    /**
     * Records {@link Kind#ITEM_PUT} of queue item {@code item} (after the put succeeded).
     *
     * @param item the item's id
     * @return the appended event
     */
    public Event itemPut(String item) {
        return append(Kind.ITEM_PUT, item, NO_TOKEN, "");
    }

    /**
     * Records {@link Kind#ITEM_TAKEN} of queue item {@code item} (as consumption starts).
     *
     * @param item the item's id
     * @return the appended event
     */
    public Event itemTaken(String item) {
        return append(Kind.ITEM_TAKEN, item, NO_TOKEN, "");
    }

    /**
     * Records {@link Kind#ITEM_DONE} of queue item {@code item} (as consumption returns).
     *
     * @param item the item's id
     * @return the appended event
     */
    public Event itemDone(String item) {
        return append(Kind.ITEM_DONE, item, NO_TOKEN, "");
    }

    /**
     * Records {@link Kind#ITEM_DROPPED} of queue item {@code item}, with the reason.
     *
     * @param item the item's id
     * @param reason why it was dropped
     * @return the appended event
     */
    public Event itemDropped(String item, String reason) {
        return append(Kind.ITEM_DROPPED, item, NO_TOKEN, reason);
    }

    /**
     * Records {@link Kind#OP_INVOKED} of {@code operation} on {@code object} (just before sending it).
     *
     * @param object the object operated on, e.g. a counter's name
     * @param operation the operation and its arguments, e.g. {@code "add 1"}, {@code "read"}, {@code "cas 3 4"}
     * @return the appended event
     */
    public Event invoked(String object, String operation) {
        return append(Kind.OP_INVOKED, object, NO_TOKEN, operation);
    }

    /**
     * Records {@link Kind#OP_OK}: {@code operation} on {@code object} returned {@code result}.
     *
     * @param object the object operated on
     * @param operation the operation as given to {@link #invoked}
     * @param result what it returned, e.g. {@code "3 4"} for an add (before and after) or {@code "true"}
     * @return the appended event
     */
    public Event ok(String object, String operation, String result) {
        return append(Kind.OP_OK, object, NO_TOKEN, operation + " => " + result);
    }

    /**
     * Records {@link Kind#OP_FAILED}: {@code operation} on {@code object} certainly did not take effect.
     *
     * @param object the object operated on
     * @param operation the operation as given to {@link #invoked}
     * @return the appended event
     */
    public Event failed(String object, String operation) {
        return append(Kind.OP_FAILED, object, NO_TOKEN, operation);
    }

    /**
     * Records {@link Kind#OP_UNKNOWN}: {@code operation} on {@code object} ended without an answer.
     *
     * @param object the object operated on
     * @param operation the operation as given to {@link #invoked}
     * @param reason why the outcome is unknown, e.g. the exception
     * @return the appended event
     */
    public Event unknown(String object, String operation, String reason) {
        return append(Kind.OP_UNKNOWN, object, NO_TOKEN, operation + " => " + reason);
    }

    /**
     * Records {@link Kind#CONNECTED}, with e.g. the connection state that caused it.
     *
     * @param detail what caused it, e.g. {@code "RECONNECTED"} ({@code ""} or null if nothing to say)
     * @return the appended event
     */
    public Event connected(String detail) {
        return append(Kind.CONNECTED, "", NO_TOKEN, detail);
    }

    /**
     * Records {@link Kind#DISCONNECTED}, with e.g. the connection state that caused it.
     *
     * @param detail what caused it, e.g. {@code "SUSPENDED"} ({@code ""} or null if nothing to say)
     * @return the appended event
     */
    public Event disconnected(String detail) {
        return append(Kind.DISCONNECTED, "", NO_TOKEN, detail);
    }

    /**
     * Records {@link Kind#DISCONNECTED} on behalf of a fault that ends this client's session or cuts it off,
     * marked when the fault starts because the client is not told yet. The event names the fault, so the
     * checkers keep the client out of touch until that fault's {@link Kind#FAULT_HEALED}: a {@code CONNECTED}
     * before then is of the session being ended, or of a connection cut off (see {@link Checkers}).
     *
     * @param fault the fault's id, as in its {@link Kind#FAULT_INJECTED}
     * @param detail what the fault does to the client
     * @return the appended event
     */
    public Event cutOff(String fault, String detail) {
        return append(Kind.DISCONNECTED, Objects.requireNonNull(fault, "fault"), NO_TOKEN, detail);
    }

    /**
     * Records {@link Kind#PAUSED} of this client's process.
     *
     * @return the appended event
     */
    public Event paused() {
        return append(Kind.PAUSED, "", NO_TOKEN, "");
    }

    /**
     * Records {@link Kind#RESUMED} of this client's process.
     *
     * @return the appended event
     */
    public Event resumed() {
        return append(Kind.RESUMED, "", NO_TOKEN, "");
    }

    /**
     * Records a {@link Kind#NOTE} about this client.
     *
     * @param text the remark, recorded as the event's detail
     * @return the appended event
     */
    public Event note(String text) {
        return append(Kind.NOTE, "", NO_TOKEN, text);
    }
}
