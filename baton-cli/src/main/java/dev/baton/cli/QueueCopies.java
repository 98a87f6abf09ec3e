package dev.baton.cli;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.jute.Record;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.ByteBufferInputStream;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.TxnLog.TxnIterator;
import org.apache.zookeeper.txn.CreateTTLTxn;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.MultiTxn;
import org.apache.zookeeper.txn.Txn;
import org.jspecify.annotations.Nullable;

/**
 * How many queue nodes carried each queue item, read from the servers' transaction logs: the servers' own account
 * of every node created, which tells an item put twice (two nodes) from one node taken twice. A queue node's data
 * is Curator's item format (both libraries write it): a 4-byte version, then per item the byte {@code 0x01}, a
 * 4-byte length and the item's bytes, then {@code 0x02}; the chaos workloads' items are UTF-8 names.
 */
final class QueueCopies {
    private static final int VERSION = 0x00010001;
    private static final byte ITEM = 0x01;

    private QueueCopies() {
    }

    /**
     * Counts, for each item of the queues under {@code queueParents}, the distinct nodes created with it, over
     * every server's transaction logs (a transaction a server missed is in another's).
     *
     * @param dataDirectories the servers' data directories (the logs are in their {@code version-2})
     * @param queueParents the queues' paths, such as {@code /baton-chaos/queue}
     * @return the number of nodes per item; an item never seen is absent
     * @throws IOException if no server's log could be read to its end
     */
    static Map<String, Integer> count(List<Path> dataDirectories, List<String> queueParents) throws IOException {
        Map<String, Set<String>> nodes = new HashMap<>();
        int unreadable = 0;
        for (Path dataDirectory : dataDirectories) {
            Path logs = dataDirectory.resolve("version-2");
            if (!Files.isDirectory(logs)) {
                continue;
            }
            FileTxnLog log = new FileTxnLog(logs.toFile());
            try (TxnIterator it = log.read(0)) {
                while (it.getHeader() != null) {
                    record(it.getTxn(), queueParents, nodes);
                    if (!it.next()) {
                        break;
                    }
                }
            } catch (IOException e) {
                // A transaction cut off by a kill (or being written): this server's log is read up to it; each
                // committed transaction is in a majority of the servers' logs.
                unreadable++;
            }
        }
        if (unreadable == dataDirectories.size()) {
            throw new IOException("no server's transaction log could be read to its end");
        }
        Map<String, Integer> counts = new HashMap<>();
        nodes.forEach((item, paths) -> counts.put(item, paths.size()));
        return counts;
    }

    private static void record(@Nullable Record txn, List<String> parents, Map<String, Set<String>> nodes)
            throws IOException {
        if (txn instanceof MultiTxn multi) {
            for (Txn t : multi.getTxns()) {
                Record inner = switch (t.getType()) {
                    case OpCode.create, OpCode.create2 -> new CreateTxn();
                    case OpCode.createTTL -> new CreateTTLTxn();
                    default -> null; // not a queue item's node (a container, a delete, a setData)
                };
                if (inner != null) {
                    ByteBufferInputStream.byteBuffer2Record(ByteBuffer.wrap(t.getData()), inner);
                    record(inner, parents, nodes);
                }
            }
            return;
        }
        String path;
        byte[] data;
        if (txn instanceof CreateTxn c) {
            path = c.getPath();
            data = c.getData();
        } else if (txn instanceof CreateTTLTxn c) {
            path = c.getPath();
            data = c.getData();
        } else {
            return;
        }
        int slash = path.lastIndexOf('/');
        if (slash <= 0 || !parents.contains(path.substring(0, slash))) {
            return;
        }
        for (String item : items(data)) {
            nodes.computeIfAbsent(item, i -> new HashSet<>()).add(path);
        }
    }

    /** The items of a queue node's data; none if it is not in the item format. */
    static List<String> items(byte @Nullable [] data) {
        if (data == null || data.length < 4) {
            return List.of();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            if (in.readInt() != VERSION) {
                return List.of();
            }
            List<String> items = new ArrayList<>();
            while (in.available() > 0 && in.readByte() == ITEM) {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                items.add(new String(bytes, StandardCharsets.UTF_8));
            }
            return items;
        } catch (IOException | NegativeArraySizeException e) {
            return List.of();
        }
    }
}
