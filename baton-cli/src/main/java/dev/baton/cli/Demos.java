package dev.baton.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The registry of demos {@code baton demo} knows. Immutable and thread-safe. */
final class Demos {

    /** Every demo, in the order {@code --list} shows them. Recipe demos are added here, one entry each. */
    static final List<Demo> ALL = List.of(
            new ClientDemo(),
            new LeaderLatchDemo(),
            new LeaderSelectorDemo(),
            new CacheDemo(),
            new DoubleBarrierDemo(),
            new BarrierDemo(),
            new SharedCountDemo(),
            new AtomicCountersDemo(),
            new PersistentNodeDemo(),
            new GroupMemberDemo(),
            new PersistentWatcherDemo(),
            new ReadWriteLockDemo(),
            new SemaphoreMutexDemo(),
            new MultiLockDemo(),
            new LockDemo(),
            new SemaphoreDemo(),
            new DiscoveryDemo(),
            new QueueDemo());

    /** The demo run by a bare {@code baton demo}. */
    static final String DEFAULT = "client";

    private Demos() {
    }

    /**
     * Finds a demo by name or alias, ignoring case and punctuation: {@code read-write-lock},
     * {@code ReadWriteLock} and {@code InterProcessReadWriteLock} all find the read-write lock's demo.
     *
     * @param name the name
     * @return the demo, or empty if there is none by that name
     */
    static Optional<Demo> find(String name) {
        String wanted = normalize(name);
        return ALL.stream().filter(d -> normalize(d.name()).equals(wanted)
                || d.aliases().stream().anyMatch(a -> normalize(a).equals(wanted))).findFirst();
    }

    /** Lower case letters and digits only. */
    private static String normalize(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    }

    /**
     * Prints the list of demos, one a line, with their descriptions.
     *
     * @param out where to print
     */
    static void printList(PrintStream out) {
        int width = ALL.stream().mapToInt(d -> d.name().length()).max().orElse(0);
        out.println("Demos (run one with: baton demo <name>):");
        for (Demo demo : ALL) {
            String suffix = demo.name().equals(DEFAULT) ? " (the default)" : "";
            out.printf("  %-" + width + "s  %s%s%n", demo.name(), demo.description(), suffix);
        }
    }
}
