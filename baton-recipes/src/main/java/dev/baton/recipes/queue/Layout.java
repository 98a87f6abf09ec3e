package dev.baton.recipes.queue;

import java.util.Comparator;
import java.util.Locale;

/**
 * How one kind of queue names, orders and times its item nodes, as Curator 5.9 does. Every item node's name
 * starts with {@code queue-} and ends with the 10-digit sequence ZooKeeper appends:
 * <ul>
 *   <li>plain queue: {@code queue-<seq>}, in name order (the sequence);</li>
 *   <li>id queue: {@code queue-|<id>|<seq>} (with {@code /} and {@code |} in the id replaced by {@code _}), in
 *       order of the name without its {@code |<id>|} part;</li>
 *   <li>priority queue: {@code queue-<p><seq>} where {@code <p>} is {@code 1} and 8 upper-case hex digits of the
 *       priority for a priority {@code >= 0}, {@code 0} and the 8 hex digits of its two's complement for a
 *       negative one, in name order (lower priority first, then sequence);</li>
 *   <li>delay queue: {@code queue-|<epoch>|<seq>} with {@code <epoch>} the delivery time in epoch milliseconds as
 *       (at least 8) upper-case hex digits, in order of that time, then sequence; not delivered before it.</li>
 * </ul>
 * Stateless.
 */
abstract class Layout {
    static final String ITEM_PREFIX = "queue-";
    static final char SEPARATOR = '|';

    static final Layout PLAIN = new Layout() {
        @Override
        Comparator<String> order() {
            return Comparator.naturalOrder();
        }
    };

    static final Layout PRIORITY = PLAIN;

    static final Layout ID = new Layout() {
        @Override
        Comparator<String> order() {
            return Comparator.comparing(Layout::withoutId).thenComparing(Comparator.naturalOrder());
        }

        @Override
        String requeuePrefix(String name) {
            return idPrefix(idOf(name));
        }
    };

    static final Layout DELAY = new Layout() {
        @Override
        Comparator<String> order() {
            return Comparator.comparingLong(Layout::epochOf).thenComparing(Comparator.naturalOrder());
        }

        @Override
        long delayMillis(String name, long nowMillis) {
            return epochOf(name) - nowMillis;
        }

        @Override
        String requeuePrefix(String name) {
            return ITEM_PREFIX; // as Curator: a requeued delayed item is due at once
        }
    };

    /** {@return true if {@code name} is an item node of a queue (other children are skipped)} */
    boolean isItem(String name) {
        return name.startsWith(ITEM_PREFIX);
    }

    /** {@return the delivery order of item names} */
    abstract Comparator<String> order();

    /** {@return how long item {@code name} must still wait, in milliseconds; {@code <= 0}: deliverable} */
    long delayMillis(String name, long nowMillis) {
        return 0;
    }

    /** {@return the name prefix under which a failed item is put back ({@link ErrorMode#REQUEUE})} */
    String requeuePrefix(String name) {
        return ITEM_PREFIX;
    }

    /** The name prefix of an id queue's item. */
    static String idPrefix(String id) {
        return ITEM_PREFIX + SEPARATOR + id.replace('/', '_').replace(SEPARATOR, '_') + SEPARATOR;
    }

    /** The name prefix of a priority queue's item. */
    static String priorityPrefix(int priority) {
        return ITEM_PREFIX + (priority >= 0 ? "1" : "0")
                + String.format(Locale.ROOT, "%08X", (long) priority & 0xFFFFFFFFL);
    }

    /** The name prefix of a delay queue's item. */
    static String delayPrefix(long epochMillis) {
        return ITEM_PREFIX + SEPARATOR + String.format(Locale.ROOT, "%08X", epochMillis) + SEPARATOR;
    }

    /** The id in an id queue's item name; the whole name if it has none. */
    static String idOf(String name) {
        int first = name.indexOf(SEPARATOR);
        int second = first < 0 ? -1 : name.indexOf(SEPARATOR, first + 1);
        return second < 0 ? name : name.substring(first + 1, second);
    }

    /** An id queue's item name without its {@code |<id>|} part. */
    static String withoutId(String name) {
        int first = name.indexOf(SEPARATOR);
        int second = first < 0 ? -1 : name.indexOf(SEPARATOR, first + 1);
        return second < 0 ? name : name.substring(0, first) + name.substring(second + 1);
    }

    /** The delivery time in a delay queue's item name, 0 if it has none (deliverable at once). */
    static long epochOf(String name) {
        int second = name.lastIndexOf(SEPARATOR);
        int first = second > 0 ? name.lastIndexOf(SEPARATOR, second - 1) : -1;
        if (first < 0 || second <= first + 1) {
            return 0;
        }
        try {
            return Long.parseLong(name.substring(first + 1, second), 16);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
