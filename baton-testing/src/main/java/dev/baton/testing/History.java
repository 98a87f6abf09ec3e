package dev.baton.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A thread-safe, append-only record of what many clients did and saw during a test: locks acquired, released
 * and lost, leadership gained and lost, barrier calls, queue items put and consumed, fencing tokens accepted or rejected by a guarded
 * resource, connection-state changes, process pauses and injected faults. {@link Checkers} then verifies the
 * safety and liveness properties on it.
 *
 * <h2>Time</h2>
 * Every event is stamped when it is appended, with {@link System#nanoTime()} relative to the creation of the
 * history, and gets a sequence number. Stamping and appending happen under one lock, so sequence order and
 * time order agree and all threads of the JVM share the clock. The order of the history is the order in which
 * the {@link #record record} calls happened; callers must therefore record a belief change on the safe side of
 * the action it describes: {@link Kind#ACQUIRED} <em>after</em> the server granted the lock, {@link
 * Kind#RELEASED} <em>before</em> the release request is sent, {@link Kind#LOST}/{@link Kind#DISCONNECTED} as soon
 * as the client learns it.
 *
 * <h2>Events from other processes</h2>
 * A driver JVM (a client in its own process, for pauses) prints each event with {@link Event#toLine()} on its
 * standard output. There are two ways to take them in:
 * <ul>
 *   <li>{@link #recordLine(String)} <em>re-stamps</em> the event on receipt: it is placed a little later than it
 *       happened (the pipe delay, which grows when the machine is busy). Good enough for a test that waits for
 *       each event before causing the next.</li>
 *   <li>{@link #recordAt} keeps the time at which the driver recorded the event, on a clock both processes share:
 *       {@link System#nanoTime()} is the machine's monotonic clock on Linux (every JVM of the machine reads the
 *       same one; {@link DriverProcess#clockOffsetNanos()} checks it, or measures the offset elsewhere). A driver
 *       stamps each event with its own {@code System.nanoTime()} as it happens, so the order of events from
 *       several drivers is right even when their lines arrive late or a driver was paused with SIGSTOP right after
 *       acting. The history then holds events out of time order; check {@link #timeOrdered()}.</li>
 * </ul>
 * Either way the test records {@link Kind#PAUSED}/{@link Kind#RESUMED} of a driver itself.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public final class History {

    /** The value of {@link Event#token()} for events that carry no fencing token. */
    public static final long NO_TOKEN = Long.MIN_VALUE;

    /** The prefix of every line written by {@link Event#toLine()}; other lines are not events. */
    public static final String LINE_PREFIX = "@@baton-event ";

    /** What happened. Each kind documents which fields of {@link Event} it uses. */
    public enum Kind {
        /** Client acquired lock {@code name} with fencing {@code token}: it now believes it holds it. */
        ACQUIRED,
        /** Client stopped believing it holds lock {@code name} and is about to release it. */
        RELEASED,
        /** Client learned that lock {@code name} may be or is lost, and stopped believing it holds it. */
        LOST,
        /** Client became leader of {@code name} with fencing {@code token}. */
        BECAME_LEADER,
        /** Client stopped believing it leads {@code name} (gave up, or lost it). */
        LOST_LEADERSHIP,
        /** Client called {@code enter} on barrier {@code name}. */
        ENTER_CALLED,
        /** Client's {@code enter} on barrier {@code name} returned successfully (it passed the barrier). */
        ENTER_RETURNED,
        /** Client called {@code leave} on barrier {@code name}. */
        LEAVE_CALLED,
        /** Client's {@code leave} on barrier {@code name} returned successfully. */
        LEAVE_RETURNED,
        /** Client put queue item {@code name} (record once the put succeeded; one name per item put). */
        ITEM_PUT,
        /** Client started consuming queue item {@code name}: it now believes the item is its to consume. */
        ITEM_TAKEN,
        /** Client finished consuming queue item {@code name} ({@code consumeMessage} returned normally). */
        ITEM_DONE,
        /** Client stopped consuming queue item {@code name} without finishing (e.g. told its session ended). */
        ITEM_DROPPED,
        /** Guarded resource {@code name} accepted an operation by the client with fencing {@code token}. */
        TOKEN_USED,
        /** Guarded resource {@code name} rejected an operation by the client with stale fencing {@code token}. */
        TOKEN_REJECTED,
        /** The client's process was paused (SIGSTOP): what it believes does not count until it resumes. */
        PAUSED,
        /** The client's process was resumed (SIGCONT). */
        RESUMED,
        /** A fault was injected; {@code name} identifies it (to match its heal), {@code detail} describes it. */
        FAULT_INJECTED,
        /** The fault identified by {@code name} was healed. */
        FAULT_HEALED,
        /**
         * Client invoked operation {@code detail} (e.g. {@code "add 1"}, {@code "read"}, {@code "cas 3 4"}) on
         * object {@code name}, such as a counter; one operation per client and object at a time. See
         * {@link Checkers#linearizable(String...)}.
         */
        OP_INVOKED,
        /**
         * The client's operation on {@code name} returned; {@code detail} is {@code "<op> => <result>"}, e.g.
         * {@code "add 1 => 3 4"} (the value before and after), {@code "read => 4"}, {@code "cas 3 4 => true"}.
         */
        OP_OK,
        /** The client's operation on {@code name} definitely did not take effect; {@code detail} is the operation. */
        OP_FAILED,
        /**
         * The client's operation on {@code name} ended without an answer (e.g. connection loss): it may or may not
         * have taken effect; {@code detail} is {@code "<op> => <why>"}.
         */
        OP_UNKNOWN,
        /** The client is connected to a server (first connection or reconnection). */
        CONNECTED,
        /** The client lost its connection (e.g. {@code SUSPENDED} or {@code LOST}); it is not connected. */
        DISCONNECTED,
        /** Free-form remark, ignored by the checkers; {@code detail} says what. */
        NOTE
    }

    /**
     * One immutable entry of a history.
     *
     * @param seq position in the history, from 0
     * @param nanos time since the history was created, in nanoseconds ({@link System#nanoTime()} based)
     * @param client who the event is about ({@code ""} for faults and notes not tied to a client)
     * @param kind what happened
     * @param name the lock, leadership, barrier, resource or fault id the event is about ({@code ""} if none)
     * @param token the fencing token, or {@link History#NO_TOKEN}
     * @param detail free text ({@code ""} if none)
     */
    public record Event(long seq, long nanos, String client, Kind kind, String name, long token, String detail) {

        /**
         * Validates the fields; {@code null} texts become {@code ""}.
         *
         * @param seq position in the history, from 0
         * @param nanos time since the history was created, in nanoseconds
         * @param client who the event is about ({@code ""} or null if nobody)
         * @param kind what happened
         * @param name what it is about ({@code ""} or null if nothing)
         * @param token the fencing token, or {@link History#NO_TOKEN}
         * @param detail free text ({@code ""} or null if none)
         * @throws IllegalArgumentException if {@code seq} is negative
         */
        public Event {
            Objects.requireNonNull(kind, "kind");
            client = client == null ? "" : client;
            name = name == null ? "" : name;
            detail = detail == null ? "" : detail;
            if (seq < 0) {
                throw new IllegalArgumentException("seq must not be negative: " + seq);
            }
        }

        /**
         * Returns {@link #nanos()} as a {@link Duration} since the start of the history.
         *
         * @return when the event was recorded, on the history's clock
         */
        public Duration time() {
            return Duration.ofNanos(nanos);
        }

        /**
         * Returns true if this event carries a fencing token.
         *
         * @return whether {@link #token()} is a token rather than {@link History#NO_TOKEN}
         */
        public boolean hasToken() {
            return token != NO_TOKEN;
        }

        /**
         * Encodes this event as one line (no line terminator) that {@link History#parseLine(String)} reads back
         * exactly: {@value History#LINE_PREFIX} followed by {@code key=value} pairs, values URL-encoded (UTF-8).
         *
         * @return the encoded line
         */
        public String toLine() {
            return EventLines.encode(this);
        }

        /** Returns a human-readable one-line form: time, client, kind, name, token, detail. */
        @Override
        public String toString() {
            return EventLines.describe(this);
        }
    }

    /**
     * Records the events of one client into a history; a convenience over {@link History#record}.
     * Thread-safety: as the history.
     */
    public final class Recorder extends ClientEvents {

        private final String client;

        private Recorder(String client) {
            this.client = client;
        }

        /**
         * Returns the client id this recorder writes.
         *
         * @return the id given to {@link History#recorder(String)}
         */
        public String client() {
            return client;
        }

        @Override
        Event append(Kind kind, String name, long token, String detail) {
            return record(client, kind, name, token, detail);
        }
    }

    private final long origin;
    private final Object lock = new Object();
    @GuardedBy("lock")
    private final List<Event> events = new ArrayList<>();
    /** The number of events a {@link #streaming} history has forwarded. */
    @GuardedBy("lock")
    private long forwarded;
    private final List<Consumer<Event>> listeners = new CopyOnWriteArrayList<>();

    private final boolean retains;

    /** Creates an empty history whose clock starts now. */
    public History() {
        this(System.nanoTime(), true);
    }

    private History(long origin, boolean retains) {
        this.origin = origin;
        this.retains = retains;
    }

    /**
     * A history for a driver process: it keeps no events (so a run of hours costs no memory) but hands each one,
     * as it is recorded, to {@code sink}, e.g. to print its {@link Event#toLine() line}. Its clock is the raw
     * {@link System#nanoTime()} (origin 0), so the parent can place each event with {@link #recordAt} at the time
     * it happened. {@link #events()} is always empty; {@link Event#seq()} still counts the events recorded.
     *
     * @param sink called with each event, under the history's lock, in order
     * @return a new history that forwards and forgets
     */
    public static History streaming(Consumer<Event> sink) {
        History h = new History(0, false);
        h.addListener(Objects.requireNonNull(sink, "sink"));
        return h;
    }

    /**
     * Returns a recorder that writes events for {@code client}.
     *
     * @param client the id the recorder's events carry, e.g. {@code "p1"}
     * @return a new recorder into this history
     */
    public Recorder recorder(String client) {
        return new Recorder(Objects.requireNonNull(client, "client"));
    }

    /**
     * Appends an event stamped now.
     *
     * @param client who the event is about ({@code ""} or null if nobody)
     * @param kind what happened
     * @param name what it is about ({@code ""} or null if nothing)
     * @param token the fencing token or {@link #NO_TOKEN}
     * @param detail free text ({@code ""} or null if none)
     * @return the appended event
     */
    public Event record(String client, Kind kind, String name, long token, String detail) {
        return append(false, 0, client, kind, name, token, detail);
    }

    /** Appends an event stamped now (the clock read under the lock, so that order and time agree) or at a time. */
    private Event append(boolean at, long nanoTime, String client, Kind kind, String name, long token,
            String detail) {
        Objects.requireNonNull(kind, "kind");
        Event e;
        synchronized (lock) {
            long time = at ? nanoTime : System.nanoTime();
            e = new Event(retains ? events.size() : forwarded++, time - origin, client, kind, name, token, detail);
            if (retains) {
                events.add(e);
            }
            // Under the lock, so that listeners (e.g. a driver printing lines) see the history's order.
            for (Consumer<Event> l : listeners) {
                try {
                    l.accept(e);
                } catch (RuntimeException ex) {
                    // A broken listener must not lose events for the others.
                }
            }
        }
        return e;
    }

    /**
     * Records {@link Kind#FAULT_INJECTED} for fault {@code faultId}, described by {@code description}.
     *
     * @param faultId identifies the fault, to match its {@link #faultHealed heal}; the event's name
     * @param description what the fault does, recorded as the event's detail
     * @return the appended event
     */
    public Event faultInjected(String faultId, String description) {
        return record("", Kind.FAULT_INJECTED, faultId, NO_TOKEN, description);
    }

    /**
     * Records {@link Kind#FAULT_HEALED} for fault {@code faultId}, described by {@code description}.
     *
     * @param faultId the id the fault was {@link #faultInjected injected} with
     * @param description how it was healed, recorded as the event's detail
     * @return the appended event
     */
    public Event faultHealed(String faultId, String description) {
        return record("", Kind.FAULT_HEALED, faultId, NO_TOKEN, description);
    }

    /**
     * Records a {@link Kind#NOTE} not tied to a client.
     *
     * @param text the remark, recorded as the event's detail
     * @return the appended event
     */
    public Event note(String text) {
        return record("", Kind.NOTE, "", NO_TOKEN, text);
    }

    /**
     * Appends the event encoded in {@code line} (as written by {@link Event#toLine()} in another process),
     * re-stamped with this history's sequence and clock at the moment of the call. Lines that are not events
     * (other output of the driver) are ignored.
     *
     * @param line a line of a driver's output
     * @return the appended event, or empty if {@code line} is not an event line
     * @throws IllegalArgumentException if the line starts with {@link #LINE_PREFIX} but is malformed
     */
    public Optional<Event> recordLine(String line) {
        return parseLine(line).map(e -> record(e.client(), e.kind(), e.name(), e.token(), e.detail()));
    }

    /**
     * Appends an event that happened at {@code nanoTime}, a reading of {@link System#nanoTime()} on this machine's
     * monotonic clock (e.g. taken by a driver process as it acted, and shifted by the driver's
     * {@link DriverProcess#clockOffsetNanos() clock offset}), rather than now. The event gets the next sequence
     * number, so {@link #events()} is in order of recording, not of time, once such events come in; use
     * {@link #timeOrdered()} to check them.
     *
     * @param nanoTime when it happened, on this JVM's {@code System.nanoTime()} scale
     * @param client who the event is about ({@code ""} or null if nobody)
     * @param kind what happened
     * @param name what it is about ({@code ""} or null if nothing)
     * @param token the fencing token or {@link #NO_TOKEN}
     * @param detail free text ({@code ""} or null if none)
     * @return the appended event
     */
    public Event recordAt(long nanoTime, String client, Kind kind, String name, long token, String detail) {
        return append(true, nanoTime, client, kind, name, token, detail);
    }

    /**
     * Returns a snapshot of the events in order of their time (events with equal times in order of recording),
     * renumbered from 0 in that order: the view the checkers need once {@link #recordAt} placed events in the
     * past. Without such events it equals {@link #events()}.
     *
     * @return the events by time, with {@link Event#seq()} their position in this list
     */
    public List<Event> timeOrdered() {
        List<Event> sorted = new ArrayList<>(events());
        sorted.sort(Comparator.comparingLong(Event::nanos).thenComparingLong(Event::seq));
        List<Event> out = new ArrayList<>(sorted.size());
        for (Event e : sorted) {
            out.add(new Event(out.size(), e.nanos(), e.client(), e.kind(), e.name(), e.token(), e.detail()));
        }
        return out;
    }

    /**
     * Returns the reading of {@link System#nanoTime()} at which this history's clock started: an event's
     * {@link Event#nanos()} plus this is its time on the machine's monotonic clock.
     *
     * @return the origin of this history's clock
     */
    public long origin() {
        return origin;
    }

    /**
     * Decodes a line written by {@link Event#toLine()}, as it was written (with the writer's sequence number and
     * time). Leading text before {@link #LINE_PREFIX} is skipped, so prefixed log lines work too.
     *
     * @param line the line to decode, without its line terminator
     * @return the event, or empty if the line holds no {@link #LINE_PREFIX}
     * @throws IllegalArgumentException if the line is malformed after the prefix
     */
    public static Optional<Event> parseLine(String line) {
        return EventLines.decode(line);
    }

    /**
     * Reads back a line of {@link #format(Collection, Set)} (a history listed for humans, as {@code baton chaos
     * --history} writes it), so that a listed history can be checked again. The time comes back to the
     * microsecond (as listed); a client or name with spaces, or a detail with a line break, does not survive the
     * listing.
     *
     * @param line a listed line, with or without its {@code >>} marker
     * @return the event, or empty if the line is not a listed event (e.g. a {@code ... n event(s) ...} line)
     * @throws IllegalArgumentException if the line looks like a listed event but its fields do not parse
     */
    public static Optional<Event> parseListed(String line) {
        return EventLines.parseListed(line);
    }

    /**
     * Adds a listener called with each event as it is appended, in history order, on the appending thread and
     * under the history's lock (keep it quick; it must not record into this history). A driver process uses
     * {@code history.addListener(e -> System.out.println(e.toLine()))}. A listener that throws is ignored.
     *
     * @param listener called with each event appended from now on
     */
    public void addListener(Consumer<Event> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes a listener added with {@link #addListener}.
     *
     * @param listener the listener to remove; one that was not added is ignored
     */
    public void removeListener(Consumer<Event> listener) {
        listeners.remove(listener);
    }

    /**
     * Returns an immutable snapshot of the events recorded so far, in order.
     *
     * @return the events, in sequence order; later records do not change it
     */
    public List<Event> events() {
        synchronized (lock) {
            return List.copyOf(events);
        }
    }

    /**
     * Returns the number of events recorded so far.
     *
     * @return the event count, which is also the sequence number the next event gets
     */
    public int size() {
        synchronized (lock) {
            return events.size();
        }
    }

    /**
     * Returns the time elapsed since this history was created, on its clock.
     *
     * @return the time since creation, on the same clock as {@link Event#time()}
     */
    public Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - origin);
    }

    /**
     * Writes all events so far, one per line, to {@code out}.
     *
     * @param out where the human-readable lines go, e.g. {@code System.out} or a {@code StringBuilder}
     * @throws UncheckedIOException if {@code out} throws an {@link IOException}
     */
    public void dump(Appendable out) {
        try {
            out.append(format(events(), Set.of()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes all events so far to {@code file}, one {@link Event#toLine()} per line (readable again with
     * {@link #parseLine}), creating or replacing it.
     *
     * @param file the file to write
     * @throws UncheckedIOException if the file cannot be written
     */
    public void dump(Path file) {
        EventLines.write(file, events());
    }

    /** Returns all events so far, one human-readable line each. */
    @Override
    public String toString() {
        return format(events(), Set.of());
    }

    /**
     * Formats events one per line; events whose sequence number is in {@code marked} get a {@code >>} marker.
     *
     * @param events the events to format, in the order given
     * @param marked the sequence numbers of the events to mark
     * @return the formatted lines, each ending with a newline
     */
    public static String format(Collection<Event> events, Set<Long> marked) {
        return EventLines.format(events, marked);
    }
}
