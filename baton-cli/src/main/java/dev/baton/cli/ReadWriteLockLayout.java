package dev.baton.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code InterProcessReadWriteLock}: {@code _c_<uuid>-__READ__<seq>} and {@code _c_<uuid>-__WRIT__<seq>} children
 * in one queue. A writer holds when it is first; every reader holds while no writer is ahead of it, so all the
 * readers before the first writer are holders at once. A reader named with the sequence of the holding writer is
 * that writer's downgrade: it holds beside it, and the writer holds although the reader may sort first.
 */
final class ReadWriteLockLayout implements Layout {

    private static final String READ = "__READ__";
    private static final String WRITE = "__WRIT__";

    @Override
    public Optional<Finding> recognize(Znode node, InspectOptions options) {
        List<RecipeQueue.Entry> queue = RecipeQueue.of(node, Set.of(READ, WRITE));
        if (queue.isEmpty()) {
            return Optional.empty();
        }
        int firstWriter = -1;
        for (int i = 0; i < queue.size() && firstWriter < 0; i++) {
            firstWriter = isWriter(queue.get(i)) ? i : -1;
        }
        // The first writer holds when nothing but its own downgrade (same sequence) is ahead of it.
        long head = queue.get(0).name().sequence();
        RecipeQueue.Entry holdingWriter = firstWriter >= 0 && queue.get(firstWriter).name().sequence() == head
                ? queue.get(firstWriter) : null;
        List<Role> roles = new ArrayList<>();
        List<RecipeQueue.Entry> readers = new ArrayList<>();
        RecipeQueue.Entry writer = null;
        int waitingReaders = 0;
        int waitingWriters = 0;
        for (int i = 0; i < queue.size(); i++) {
            RecipeQueue.Entry entry = queue.get(i);
            boolean holds;
            if (isWriter(entry)) {
                holds = holdingWriter != null && i == firstWriter;
                writer = holds ? entry : writer;
                waitingWriters += holds ? 0 : 1;
            } else {
                holds = firstWriter < 0 || i < firstWriter
                        || (holdingWriter != null && entry.name().sequence() == head);
                if (holds) {
                    readers.add(entry);
                } else {
                    waitingReaders++;
                }
            }
            roles.add(new Role(i + 1, holds ? "holder" : "waiting", isWriter(entry) ? "write" : "read"));
        }
        StringBuilder summary = new StringBuilder("read-write lock: ");
        if (writer != null) {
            summary.append("writer ").append(writer.label()).append(" holds the write lock");
            if (!readers.isEmpty()) {
                summary.append(" and the read lock (downgrading)");
            }
        } else {
            summary.append(readers.size()).append(readers.size() == 1 ? " reader holds" : " readers hold")
                    .append(" the read lock");
        }
        summary.append("; waiting: ").append(count(waitingWriters, "writer")).append(", ")
                .append(count(waitingReaders, "reader"));
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("writer", writer == null ? null : writer.id());
        facts.put("readers", readers.size());
        facts.put("waitingWriters", waitingWriters);
        facts.put("waitingReaders", waitingReaders);
        facts.put("participants", RecipeQueue.participants(queue, roles));
        return Optional.of(new Finding("read-write-lock", summary.toString(), RecipeQueue.roles(queue, roles), facts,
                Set.of()));
    }

    private static boolean isWriter(RecipeQueue.Entry entry) {
        return entry.name().marker().equals(WRITE);
    }

    private static String count(int n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }
}
