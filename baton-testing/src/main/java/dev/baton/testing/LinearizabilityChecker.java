package dev.baton.testing;

import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * Linearizability of counters ({@link Checkers#linearizable(String...)}): is there one order of the operations,
 * each placed between its invocation and its return, in which every result is what a single counter would have
 * answered?
 *
 * <h2>Search</h2>
 * A Wing–Gong search with Lowe's memoization, run as a sweep over the history: the checker keeps the set of
 * <em>configurations</em> the counter can be in, each a value and the set of operations already linearized but not
 * returned yet. An invocation adds an operation to the pending ones. A return of a known result keeps only the
 * configurations in which the operation can be linearized by then: from each configuration it tries the pending
 * operations in every order (a breadth-first closure, configurations met twice explored once) until the returning
 * one is placed. An operation whose outcome is unknown may take effect once, or never: at its end both are kept.
 * No configuration left means no order explains the history: a violation, reported with the operations that were
 * open then; the search goes on from the value the operation's answer left (so one violation does not hide the
 * next: each is reported).
 *
 * <h2>Bounds</h2>
 * The search space grows with the number of operations open at once, not with the length of the history. A
 * client runs one operation at a time on an object; an operation without an answer (connection loss) stays open
 * until the same client's next operation on the object returns: its request, if it ever applied, was applied
 * before that one, as ZooKeeper answers one session's requests in order and refuses those of a session that moved
 * or ended. An operation still open when the history ends stays open to the end. If one step explores more than
 * {@value #MAX_STEP_CONFIGURATIONS} configurations, the checker stops with a violation saying it could not decide,
 * rather than run for hours or pass unproven, and checks that object no further.
 */
final class LinearizabilityChecker implements HistoryChecker {

    static final int MAX_STEP_CONFIGURATIONS = 200_000;

    private final Set<String> names;
    private final long initialValue;

    LinearizabilityChecker(Set<String> names, long initialValue) {
        this.names = Set.copyOf(names);
        this.initialValue = initialValue;
    }

    @Override
    public String name() {
        return "linearizable";
    }

    @Override
    public List<Violation> check(List<Event> events) {
        Map<String, List<Event>> byObject = new LinkedHashMap<>();
        for (Event e : events) {
            if (isOp(e.kind()) && (names.isEmpty() || names.contains(e.name()))) {
                byObject.computeIfAbsent(e.name(), n -> new ArrayList<>()).add(e);
            }
        }
        List<Violation> found = new ArrayList<>();
        byObject.forEach((object, ops) -> found.addAll(checkObject(object, ops, events)));
        return found;
    }

    private static boolean isOp(Kind k) {
        return k == Kind.OP_INVOKED || k == Kind.OP_OK || k == Kind.OP_FAILED || k == Kind.OP_UNKNOWN;
    }

    /** One operation: its invocation, what it asked, and how it ended. */
    private static final class Op {
        final Event invoked;
        final Operation operation;
        /** Its return event, and that event's kind; both null while it has none. */
        @Nullable Event returned;
        @Nullable Kind outcome;
        /** Where its window ends: its return, or for an unknown outcome the client's next return; null: open. */
        @Nullable Event end;
        /**
         * The value before and after (add), the value read (read), success (cas), from the answer; set exactly
         * when the outcome is {@code OP_OK}.
         */
        long @Nullable [] result;
        /** Its bit in {@link Config#linearized()} while it is pending. */
        int slot;

        Op(Event invoked) {
            this.invoked = invoked;
            this.operation = Operation.parse(invoked.detail());
        }

        String describe() {
            Event r = returned;
            String end = r == null ? "(no answer)" : outcome == Kind.OP_OK ? r.detail()
                    : r.detail() + " (" + outcome + ")";
            return invoked.client() + ": " + end;
        }
    }

    /** What an operation asks: {@code read}, {@code add d}, {@code cas expected new}, {@code set v}. */
    private record Operation(String verb, long a, long b) {
        static Operation parse(String text) {
            String[] w = text.strip().split(" +", -1);
            try {
                return switch (w[0]) {
                    case "read" -> new Operation("read", 0, 0);
                    case "add" -> new Operation("add", Long.parseLong(w[1]), 0);
                    case "cas" -> new Operation("cas", Long.parseLong(w[1]), Long.parseLong(w[2]));
                    case "set" -> new Operation("set", Long.parseLong(w[1]), 0);
                    default -> throw new IllegalArgumentException("unknown operation " + w[0]);
                };
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not a counter operation (read, add d, cas e n, set v): '" + text
                        + "'", e);
            }
        }
    }

    /** A point of the sweep: an invocation or an end (a return, or the end of an open window). */
    private record Step(long nanos, long seq, boolean call, Op op) {
    }

    /** A counter value and the operations linearized but not ended yet (a bit per pending slot). */
    private record Config(long value, long linearized) {
    }

    private List<Violation> checkObject(String object, List<Event> opEvents, List<Event> all) {
        List<Op> ops = new ArrayList<>();
        Map<String, Op> open = new HashMap<>();
        Map<String, Op> unanswered = new HashMap<>(); // by client: an OP_UNKNOWN op waiting for the next return
        for (Event e : opEvents) {
            if (e.kind() == Kind.OP_INVOKED) {
                Op op = new Op(e);
                ops.add(op);
                Op before = open.put(e.client(), op);
                if (before != null) {
                    throw new IllegalArgumentException("client " + e.client() + " invoked '" + e.detail() + "' on "
                            + object + " (event " + e.seq() + ") while '" + before.invoked.detail()
                            + "' was open: one operation at a time per client and object");
                }
                continue;
            }
            Op op = open.remove(e.client());
            if (op == null) {
                continue; // a return without its invocation (recorded before the history began): ignore
            }
            op.returned = e;
            op.outcome = e.kind();
            if (e.kind() == Kind.OP_OK) {
                op.result = parseResult(op, e.detail());
            }
            Op earlier = unanswered.remove(e.client());
            if (earlier != null) {
                earlier.end = e; // its window ends where this one does
            }
            if (e.kind() == Kind.OP_UNKNOWN) {
                unanswered.put(e.client(), op); // open until the client's next return, or the end
            } else {
                op.end = e;
            }
        }
        List<Step> steps = new ArrayList<>();
        long endNanos = all.isEmpty() ? 0 : all.get(all.size() - 1).nanos() + 1;
        long endSeq = all.size();
        for (Op op : ops) {
            if (op.outcome == Kind.OP_FAILED || (op.outcome != Kind.OP_OK && op.operation.verb().equals("read"))) {
                continue; // no effect, or no result to explain
            }
            steps.add(new Step(op.invoked.nanos(), op.invoked.seq(), true, op));
            Event end = op.end;
            steps.add(end == null ? new Step(endNanos, endSeq, false, op) : new Step(end.nanos(), end.seq(), false, op));
        }
        // Ends before calls at one instant would be wrong only for equal times: calls sort first there.
        steps.sort((x, y) -> x.nanos != y.nanos ? Long.compare(x.nanos, y.nanos)
                : x.seq != y.seq ? Long.compare(x.seq, y.seq) : Boolean.compare(!x.call, !y.call));

        List<Violation> found = new ArrayList<>();
        Set<Config> configs = new HashSet<>();
        configs.add(new Config(initialValue, 0L));
        Set<Long> held = new HashSet<>(); // every value the counter may have held so far
        held.add(initialValue);
        Map<Integer, Op> pending = new LinkedHashMap<>(); // by slot: the bit of the op in Config.linearized
        for (Step step : steps) {
            Op op = step.op;
            if (step.call) {
                int slot = 0;
                while (pending.containsKey(slot)) {
                    slot++;
                }
                if (slot >= Long.SIZE) {
                    found.add(violation(object, all, pending.values(), op, "more than " + Long.SIZE
                            + " operations on " + object + " open at once; linearizability not checked further"));
                    return found;
                }
                op.slot = slot;
                pending.put(slot, op);
                continue;
            }
            // The configurations in which op has taken effect by now, op then forgotten.
            Set<Long> passed = new HashSet<>(); // the values this step's search went through
            Set<Config> placed = place(configs, pending, op, passed);
            if (placed == null) {
                found.add(violation(object, all, pending.values(), op, "the search for an order explaining "
                        + object + " gave up after " + MAX_STEP_CONFIGURATIONS + " configurations at "
                        + op.describe() + "; linearizability not proven from there"));
                return found;
            }
            if (op.outcome != Kind.OP_OK) {
                // Unknown outcome: or it never took effect.
                for (Config c : configs) {
                    if ((c.linearized() & bit(op)) == 0) {
                        placed.add(c);
                    }
                }
            }
            pending.remove(op.slot);
            if (placed.isEmpty()) {
                long[] read = op.operation.verb().equals("read") ? op.result : null;
                found.add(violation(object, all, pending.values(), op, "no order of the operations on "
                        + object + " explains " + op.describe() + "; before it the counter could hold "
                        + values(configs) + (read != null && held.contains(read[0]) ? "; " + Checkers.STALE_READ
                                + ": the counter may have held " + read[0] + " earlier" : "")));
                placed = resumeAfter(configs, op);
            }
            configs = placed;
            held.addAll(passed);
            configs.forEach(c -> held.add(c.value()));
        }
        return found;
    }

    /**
     * The configurations to go on from after {@code op} had no place: the counter as {@code op}'s answer says it
     * left it, with whatever else was placed before, so each violation is reported on its own rather than hiding
     * those after it. A read that no order explains may have been stale (the counter as it was) or shown a value
     * the search did not expect (the counter as read): both are kept.
     */
    private static Set<Config> resumeAfter(Set<Config> configs, Op op) {
        Set<Config> resumed = new HashSet<>();
        long[] known = op.result;
        Operation o = op.operation;
        for (Config c : configs) {
            long linearized = c.linearized() & ~bit(op);
            long value = c.value();
            if (known != null && o.verb().equals("read")) {
                resumed.add(new Config(known[0], linearized));
            } else if (known != null && o.verb().equals("add")) {
                value = known[1];
            } else if (known != null && o.verb().equals("cas") && known[0] == 1) {
                value = o.b();
            } else if (o.verb().equals("set")) {
                value = o.a();
            }
            resumed.add(new Config(value, linearized));
        }
        return resumed;
    }

    /**
     * From each configuration, places pending operations in every order the answers allow until {@code op} is
     * placed (breadth first, each configuration explored once); returns those with {@code op} placed, its bit
     * cleared, or null if the search grew past the bound.
     */
    private static @Nullable Set<Config> place(Set<Config> configs, Map<Integer, Op> pending, Op op,
            Set<Long> passed) {
        Set<Config> placed = new HashSet<>();
        Set<Config> seen = new HashSet<>(configs);
        List<Config> frontier = new ArrayList<>(configs);
        while (!frontier.isEmpty()) {
            List<Config> more = new ArrayList<>();
            for (Config c : frontier) {
                if ((c.linearized() & bit(op)) != 0) {
                    placed.add(new Config(c.value(), c.linearized() & ~bit(op)));
                    continue; // op is placed: nothing else needs placing now
                }
                for (Op p : pending.values()) {
                    if ((c.linearized() & bit(p)) != 0) {
                        continue;
                    }
                    Long after = apply(p, c.value());
                    if (after != null) {
                        Config d = new Config(after, c.linearized() | bit(p));
                        if (seen.add(d)) {
                            more.add(d);
                            passed.add(after);
                        }
                    }
                }
            }
            if (seen.size() > MAX_STEP_CONFIGURATIONS) {
                return null;
            }
            frontier = more;
        }
        return placed;
    }

    private static long bit(Op op) {
        return 1L << op.slot;
    }

    /** The value after {@code op} from {@code value}, or null if its answer rules that out. */
    private static @Nullable Long apply(Op op, long value) {
        Operation o = op.operation;
        long[] known = op.result; // the answer, if the outcome is known (OP_OK)
        return switch (o.verb()) {
            case "read" -> known != null && known[0] != value ? null : value;
            case "add" -> {
                if (known != null && (known[0] != value || known[1] != value + o.a())) {
                    yield null;
                }
                yield value + o.a();
            }
            case "cas" -> {
                if (known == null) {
                    yield value == o.a() ? o.b() : value;
                }
                if (known[0] == 1) {
                    yield value == o.a() ? o.b() : null;
                }
                yield value != o.a() ? value : null;
            }
            case "set" -> o.a();
            default -> throw new IllegalStateException(o.verb());
        };
    }

    private static long[] parseResult(Op op, String detail) {
        int at = detail.indexOf(" => ");
        String[] w = (at < 0 ? "" : detail.substring(at + 4)).strip().split(" +", -1);
        try {
            return switch (op.operation.verb()) {
                case "read" -> new long[] {Long.parseLong(w[0])};
                case "add" -> new long[] {Long.parseLong(w[0]), Long.parseLong(w[1])};
                case "cas" -> new long[] {Boolean.parseBoolean(w[0]) ? 1 : 0};
                default -> new long[0];
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed result of " + op.operation.verb() + ": '" + detail + "'",
                    e);
        }
    }

    private static String values(Set<Config> configs) {
        TreeSet<Long> v = new TreeSet<>();
        configs.forEach(c -> v.add(c.value()));
        return v.size() <= 12 ? v.toString() : v.size() + " values from " + v.first() + " to " + v.last();
    }

    private static Violation violation(String object, List<Event> all, Collection<Op> pending, Op op,
            String message) {
        long from = op.invoked.seq();
        Set<Long> marked = new HashSet<>();
        marked.add(op.invoked.seq());
        for (Op p : pending) {
            from = Math.min(from, p.invoked.seq());
            marked.add(p.invoked.seq());
            if (p.end != null) {
                marked.add(p.end.seq());
            }
        }
        long to = op.end != null ? op.end.seq() : all.size() - 1;
        if (op.end != null) {
            marked.add(op.end.seq());
        }
        return Excerpts.violation("linearizable", message, onlyObject(all, object), from, to, marked);
    }

    /** The object's operations and the faults, pauses and connection changes around them. */
    private static List<Event> onlyObject(List<Event> all, String object) {
        List<Event> out = new ArrayList<>();
        for (Event e : all) {
            if (e.name().equals(object) || e.kind() == Kind.FAULT_INJECTED || e.kind() == Kind.FAULT_HEALED
                    || HoldTracker.isClientWide(e.kind())) {
                out.add(e);
            }
        }
        return out;
    }
}
