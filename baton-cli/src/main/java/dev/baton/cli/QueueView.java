package dev.baton.cli;

import dev.baton.BatonClient;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Shows a queue node (Curator's and Baton's layouts) as a user thinks of it: its depth, its kind, and the next
 * items in delivery order with their data decoded (the multi-item format of {@code DistributedQueue} unpacked).
 * Kinds by item names: {@code queue-<seq>} FIFO, {@code queue-<p><seq>} priority, {@code queue-|<hex time>|<seq>}
 * delay, {@code queue-|<id>|<seq>} id, {@code qn-<seq>} a {@code SimpleDistributedQueue}.
 */
final class QueueView {
    /** The next items shown. */
    static final int SHOWN = 5;
    /** Above this many children the queue is not listed (a listing might not fit one reply). */
    static final int MAX_LISTED = 40_000;

    private static final Pattern PLAIN = Pattern.compile("queue-\\d{10}");
    private static final Pattern PRIORITY = Pattern.compile("queue-[01][0-9A-F]{8}\\d{10}");
    private static final Pattern BARRED = Pattern.compile("queue-\\|([^|]*)\\|\\d{10}");
    private static final Pattern DELAY_TIME = Pattern.compile("[0-9A-F]{8,16}");
    private static final Pattern SIMPLE = Pattern.compile("qn-\\d{10}");
    private static final int ITEM_FORMAT = 0x00010001;

    private QueueView() {
    }

    /**
     * What a queue holds, as {@code inspect} shows it.
     *
     * @param kind the kind of queue its item names say, such as {@code "queue (FIFO)"}; null if too deep to tell
     * @param depth how many items it holds
     * @param next the next items in delivery order, at most {@link #SHOWN}
     */
    record Snapshot(String kind, int depth, List<Item> next) {
        /** A queue too deep to list in one reply. */
        boolean tooDeep() {
            return kind == null;
        }
    }

    /**
     * One of the next items.
     *
     * @param name the item's node name
     * @param data its data, decoded (a {@code DistributedQueue} node's items unpacked)
     * @param extra what its name says besides the order: priority, due time or id; {@code ""} if nothing
     */
    record Item(String name, String data, String extra) {
    }

    /**
     * Reads {@code path} as a queue if its children are queue items: the names, and the data of the next
     * {@link #SHOWN} items only, however deep the queue.
     *
     * @param client a started client
     * @param path the node
     * @param stat its stat
     * @return what the queue holds, or empty if the node is no queue
     * @throws KeeperException if ZooKeeper fails
     * @throws InterruptedException if interrupted
     */
    static Optional<Snapshot> read(BatonClient client, String path, Stat stat)
            throws KeeperException, InterruptedException {
        if (stat.getNumChildren() == 0) {
            return Optional.empty();
        }
        if (stat.getNumChildren() > MAX_LISTED) {
            return Optional.of(new Snapshot(null, stat.getNumChildren(), List.of()));
        }
        List<String> names = new ArrayList<>();
        for (String name : client.getChildren().forPath(path)) {
            if (name.startsWith("queue-") || SIMPLE.matcher(name).matches()) {
                names.add(name);
            }
        }
        if (names.isEmpty()) {
            return Optional.empty();
        }
        String kind = kind(names);
        names.sort(order(kind));
        List<Item> next = new ArrayList<>();
        for (String name : names.subList(0, Math.min(SHOWN, names.size()))) {
            byte[] data;
            try {
                data = client.getData().forPath(path.equals("/") ? "/" + name : path + "/" + name);
            } catch (KeeperException.NoNodeException e) {
                continue; // consumed meanwhile
            }
            next.add(new Item(name, kind.startsWith("simple") ? DataFormat.describe(data) : items(data),
                    extra(kind, name)));
        }
        return Optional.of(new Snapshot(kind, names.size(), next));
    }

    /**
     * {@return the queue's lines under its node's line: a summary, then the next items}
     *
     * @param queue what the queue holds
     * @param indent the prefix of each line
     */
    static List<String> lines(Snapshot queue, String indent) {
        if (queue.tooDeep()) {
            return List.of(indent + "[" + queue.depth() + " children: too many to list in one reply; a queue this"
                    + " deep is read by its consumers without listing]");
        }
        List<String> lines = new ArrayList<>();
        lines.add(indent + "[queue: " + queue.depth() + (queue.depth() == 1 ? " item" : " items") + ", "
                + queue.kind() + (queue.depth() > SHOWN ? "; next " + SHOWN + ":" : ":") + "]");
        int width = queue.next().stream().mapToInt(i -> i.name().length()).max().orElse(0);
        for (int i = 0; i < queue.next().size(); i++) {
            Item item = queue.next().get(i);
            lines.add(indent + "  #" + (i + 1) + " " + String.format("%-" + width + "s", item.name()) + "  "
                    + item.data() + (item.extra().isEmpty() ? "" : "  " + item.extra()));
        }
        return lines;
    }

    /**
     * {@return the {@code "recipe"} object of {@code --json}: type, kind, depth and the next items}
     *
     * @param queue what the queue holds
     */
    static Map<String, Object> json(Snapshot queue) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("type", "queue");
        json.put("kind", queue.kind());
        json.put("depth", queue.depth());
        List<Object> next = new ArrayList<>();
        for (Item item : queue.next()) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("name", item.name());
            one.put("data", item.data());
            if (!item.extra().isEmpty()) {
                one.put("detail", item.extra());
            }
            next.add(one);
        }
        json.put("next", next);
        return json;
    }

    /** The kind of queue the names say. */
    static String kind(List<String> names) {
        String first = names.get(0);
        if (SIMPLE.matcher(first).matches()) {
            return "simple queue (FIFO)";
        }
        if (PRIORITY.matcher(first).matches()) {
            return "priority queue (lowest first)";
        }
        Matcher m = BARRED.matcher(first);
        if (m.matches()) {
            boolean times = names.stream().map(BARRED::matcher).allMatch(x -> x.matches()
                    && DELAY_TIME.matcher(x.group(1)).matches());
            return times ? "delay queue (earliest due first)" : "id queue (FIFO)";
        }
        return PLAIN.matcher(first).matches() ? "queue (FIFO)" : "queue";
    }

    private static Comparator<String> order(String kind) {
        if (kind.startsWith("delay")) {
            return Comparator.comparingLong(QueueView::due).thenComparing(Comparator.naturalOrder());
        }
        if (kind.startsWith("id")) {
            return Comparator.comparing((String n) -> n.replaceFirst("\\|[^|]*\\|", ""))
                    .thenComparing(Comparator.naturalOrder());
        }
        return Comparator.naturalOrder();
    }

    private static long due(String name) {
        Matcher m = BARRED.matcher(name);
        try {
            return m.matches() ? Long.parseLong(m.group(1), 16) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String extra(String kind, String name) {
        if (kind.startsWith("delay")) {
            return "due " + java.time.Instant.ofEpochMilli(due(name));
        }
        if (kind.startsWith("priority")) {
            long raw = Long.parseLong(name.substring(7, 15), 16);
            return "priority " + (name.charAt(6) == '1' ? raw : (int) raw);
        }
        if (kind.startsWith("id")) {
            Matcher m = BARRED.matcher(name);
            return m.matches() ? "id " + m.group(1) : "";
        }
        return "";
    }

    /** The items of a {@code DistributedQueue} node, each described; the raw data if not in that format. */
    static String items(byte[] data) {
        if (data == null || data.length < 5) {
            return DataFormat.describe(data);
        }
        List<String> out = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            if (in.readInt() != ITEM_FORMAT) {
                return DataFormat.describe(data);
            }
            for (byte op = in.readByte(); op == 0x01; op = in.readByte()) {
                int length = in.readInt();
                if (length < 0 || length > in.available()) {
                    return DataFormat.describe(data);
                }
                byte[] item = new byte[length];
                in.readFully(item);
                out.add(DataFormat.describe(item));
            }
        } catch (IOException e) {
            return DataFormat.describe(data);
        }
        return out.size() == 1 ? out.get(0) : out.size() + " items: " + String.join(", ", out);
    }
}
