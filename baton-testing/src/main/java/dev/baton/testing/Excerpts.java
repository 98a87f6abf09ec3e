package dev.baton.testing;

import dev.baton.testing.History.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Builds the windows and excerpts of {@link Violation}s. */
final class Excerpts {

    /** Windows longer than this are shown with uninteresting stretches elided. */
    private static final int MAX_LINES = 80;
    /** Events shown around each marked event, and at both ends, when eliding. */
    private static final int CONTEXT = 3;

    private Excerpts() {
    }

    /** Returns events {@code fromSeq..toSeq} (inclusive) of a history snapshot. */
    static List<Event> window(List<Event> events, long fromSeq, long toSeq) {
        List<Event> out = new ArrayList<>();
        for (Event e : events) {
            if (e.seq() >= fromSeq && e.seq() <= toSeq) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Formats a window, marking {@code marked} events; a long window keeps the marked events, faults, pauses and
     * the events near them and at both ends, and replaces the rest by "... n events ..." lines.
     */
    static String excerpt(List<Event> window, Set<Long> marked) {
        if (window.size() <= MAX_LINES) {
            return History.format(window, marked);
        }
        boolean[] keep = new boolean[window.size()];
        for (int i = 0; i < window.size(); i++) {
            Event e = window.get(i);
            boolean interesting = marked.contains(e.seq()) || e.kind() == History.Kind.FAULT_INJECTED
                    || e.kind() == History.Kind.FAULT_HEALED;
            if (i < CONTEXT || i >= window.size() - CONTEXT) {
                keep[i] = true;
            }
            if (interesting) {
                int ctx = marked.contains(e.seq()) ? CONTEXT : 0;
                for (int j = Math.max(0, i - ctx); j <= Math.min(window.size() - 1, i + ctx); j++) {
                    keep[j] = true;
                }
            }
        }
        StringBuilder b = new StringBuilder();
        int skipped = 0;
        for (int i = 0; i < window.size(); i++) {
            if (!keep[i]) {
                skipped++;
                continue;
            }
            if (skipped > 0) {
                b.append("   ... ").append(skipped).append(" event(s) ...\n");
                skipped = 0;
            }
            Event e = window.get(i);
            b.append(marked.contains(e.seq()) ? ">> " : "   ").append(e).append('\n');
        }
        return b.toString();
    }

    /** Builds a violation over {@code events[fromSeq..toSeq]}. */
    static Violation violation(String checker, String message, List<Event> events, long fromSeq, long toSeq,
            Set<Long> marked) {
        List<Event> window = window(events, fromSeq, toSeq);
        return new Violation(checker, message, window, excerpt(window, marked),
                window.stream().filter(e -> marked.contains(e.seq())).toList());
    }

    /** Formats a time on the history clock in milliseconds. */
    static String ms(long nanos) {
        return String.format("%.3f ms", nanos / 1e6);
    }
}
