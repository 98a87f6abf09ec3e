package dev.baton.recipes.leader;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.internal.Failures;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException;

/** Reads an election's queue: node data as UTF-8 ids, in queue order, nodes that vanished skipped. */
final class Participants {
    private Participants() {
    }

    static List<Participant> all(BatonClient client, String path, String nodeName)
            throws KeeperException, InterruptedException {
        List<String> queue;
        try {
            queue = BatonPaths.sortBySequence(client.getChildren().forPath(path), nodeName);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
        // Read every id at once: one round trip for the whole queue rather than one per participant.
        List<CompletableFuture<byte[]>> reads = new ArrayList<>(queue.size());
        for (String node : queue) {
            reads.add(client.getData().forPathAsync(BatonPaths.makePath(path, node)));
        }
        List<Participant> participants = new ArrayList<>(queue.size());
        for (CompletableFuture<byte[]> read : reads) {
            byte[] data;
            try {
                data = read.get();
            } catch (ExecutionException e) {
                if (Failures.code(e) == KeeperException.Code.NONODE) {
                    continue; // left while we were reading
                }
                if (Failures.unwrap(e) instanceof KeeperException ke) {
                    throw ke;
                }
                throw new IllegalStateException(Failures.unwrap(e));
            }
            participants.add(new Participant(new String(data, StandardCharsets.UTF_8), participants.isEmpty()));
        }
        return participants;
    }

    static Participant leader(BatonClient client, String path, String nodeName)
            throws KeeperException, InterruptedException {
        List<String> queue;
        try {
            queue = BatonPaths.sortBySequence(client.getChildren().forPath(path), nodeName);
        } catch (KeeperException.NoNodeException e) {
            return Participant.NOBODY;
        }
        for (String node : queue) {
            try {
                byte[] data = client.getData().forPath(BatonPaths.makePath(path, node));
                return new Participant(new String(data, StandardCharsets.UTF_8), true);
            } catch (KeeperException.NoNodeException e) {
                // left meanwhile: the next one leads
            }
        }
        return Participant.NOBODY;
    }
}
