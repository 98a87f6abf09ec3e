package dev.baton.recipes.locks;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * A read-write lock shared by processes: many readers at once, or one writer. Wire-compatible with Apache
 * Curator's {@code InterProcessReadWriteLock} on the same path: readers add {@code _c_<uuid>-__READ__<seq>} and
 * writers {@code _c_<uuid>-__WRIT__<seq>} nodes to one directory, ordered together by sequence.
 *
 * <pre>{@code
 * InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, "/locks/catalog");
 * rw.readLock().acquire();
 * try {
 *     render(catalog.read());
 * } finally {
 *     rw.readLock().release();
 * }
 * }</pre>
 *
 * <p>Rules: a writer holds when its node is first; a reader holds when no writer's node is ahead of its own.
 * A waiting writer watches the node just ahead of it; a waiting reader watches the nearest <em>writer</em> ahead
 * of it, so readers never wake on other readers (all readers behind a writer wake together when it goes, which
 * is intended). Both halves are re-entrant per thread, like {@link InterProcessMutex}.
 *
 * <p>Downgrade: a thread that holds the write lock may also take the read lock, and releasing the write lock
 * then leaves it a reader, with no moment in which another writer can get in. Its read node is granted at once
 * and takes the write node's place in the queue: it is named with the write node's sequence
 * ({@code _c_<uuid>-__READ__<the write node's ten digits>}, an ephemeral node, not a sequential one), so every
 * writer that queued meanwhile, Baton's or Curator's, sorts behind it and waits for it. Curator 5.5 and later
 * name the node the same way (CURATOR-621). Upgrading (taking the write lock while holding the read lock) waits
 * for ever: the thread's own read node is ahead of its write node.
 *
 * <p>Thread-safe. No thread of its own. Both halves offer {@link InterProcessMutex#acquireAsync()}.
 */
public final class InterProcessReadWriteLock {
    static final String READ = "__READ__";
    static final String WRITE = "__WRIT__";

    private final InterProcessMutex writeLock;
    private final InterProcessMutex readLock;

    /** Orders reader and writer nodes together by sequence, as Curator does. */
    private interface Sorted extends LockQueue.Driver {
        @Override
        default List<String> sort(Collection<String> children, String nodeName) {
            List<String> nodes = new ArrayList<>(children.size());
            for (String child : children) {
                if (child.contains(READ) || child.contains(WRITE)) {
                    nodes.add(child);
                }
            }
            nodes.sort(Comparator.comparingLong(InterProcessReadWriteLock::sequence).thenComparing(n -> n));
            return nodes;
        }
    }

    /**
     * A writer holds when first; otherwise it watches the node just ahead, reader or writer. Second in the queue
     * behind a reader, it holds as soon as that reader goes: nothing can come ahead of it meanwhile. Behind a
     * writer it lists again instead, because that writer's holder may downgrade, adding a read node with the
     * writer's own sequence ahead of it.
     */
    private static final Sorted WRITER = (sorted, i) -> i == 0 ? LockQueue.Decision.HOLD
            : LockQueue.Decision.after(sorted.get(i - 1), i == 1 && sorted.get(0).contains(READ));

    /**
     * A reader holds when no writer is ahead; otherwise it watches the nearest writer ahead, and holds as soon as
     * that one goes if it is the only writer ahead (a write node always takes a fresh sequence, so no writer can
     * come ahead of the reader meanwhile).
     */
    private static final Sorted READER = (sorted, i) -> {
        int writersAhead = 0;
        String nearest = null;
        for (int j = i - 1; j >= 0; j--) {
            if (sorted.get(j).contains(WRITE)) {
                writersAhead++;
                nearest = nearest == null ? sorted.get(j) : nearest;
            }
        }
        return nearest == null ? LockQueue.Decision.HOLD : LockQueue.Decision.after(nearest, writersAhead == 1);
    };

    /**
     * The read node of a thread that holds the write lock: granted at once, and created with the sequence of
     * that write node so that it sorts in the write node's place, ahead of every node queued after it.
     */
    private static Sorted downgrade(String writeNodePath) {
        String sequence = writeNodePath.substring(writeNodePath.lastIndexOf(WRITE) + WRITE.length());
        return new Sorted() {
            @Override
            public LockQueue.Decision decide(List<String> sorted, int ourIndex) {
                return LockQueue.Decision.HOLD;
            }

            @Override
            public String fixedSequence() {
                return sequence;
            }
        };
    }

    /**
     * @param client the client
     * @param path the lock's path
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public InterProcessReadWriteLock(BatonClient client, String path) {
        this(client, path, new byte[0]);
    }

    /**
     * @param client the client
     * @param path the lock's path
     * @param nodeData the data of each node this lock creates
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path is invalid
     */
    public InterProcessReadWriteLock(BatonClient client, String path, byte[] nodeData) {
        Objects.requireNonNull(client, "client");
        BatonPaths.validate(Objects.requireNonNull(path, "path"));
        Objects.requireNonNull(nodeData, "nodeData");
        writeLock = new InterProcessMutex(new LockQueue(client, path, WRITE, WRITER), nodeData, () -> WRITER);
        readLock = new InterProcessMutex(new LockQueue(client, path, READ, READER), nodeData,
                () -> {
                    String writeNode = writeLock.ownedNodePath();
                    return writeNode == null ? READER : downgrade(writeNode);
                });
    }

    /**
     * The read half: held by many threads and processes at once while no writer holds or waits ahead.
     * {@link InterProcessMutex#getParticipantNodes()} lists the reader nodes.
     *
     * @return the read lock
     */
    public InterProcessMutex readLock() {
        return readLock;
    }

    /**
     * The write half: exclusive of every reader and writer. {@link InterProcessMutex#getParticipantNodes()}
     * lists the writer nodes.
     *
     * @return the write lock
     */
    public InterProcessMutex writeLock() {
        return writeLock;
    }

    private static long sequence(String node) {
        return BatonPaths.sequence(node, node.contains(WRITE) ? WRITE : READ);
    }
}
