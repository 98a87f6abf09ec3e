package dev.baton.cli;

import dev.baton.internal.BatonPaths;
import dev.baton.recipes.cache.ChildData;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.zookeeper.data.Stat;

/**
 * A node as {@code baton inspect} read it: path, data, stat and, when they were read, its children. A snapshot,
 * read from the server ({@link TreeReader}) or taken from a cache ({@link #fromCache}); immutable by
 * convention (the arrays and stats are not copied). Children are in name order.
 *
 * @param path the full path (without the client's namespace)
 * @param data the data, never null
 * @param stat the stat read with the data
 * @param children the children, or null when they were not read (below the depth read)
 */
record Znode(
        String path,
        // The bytes as ZooKeeper gave them, uncopied (see above); nothing compares or hashes a Znode by value.
        @SuppressWarnings("ArrayRecordComponent") byte[] data,
        Stat stat,
        List<Znode> children) {

    Znode {
        data = data == null ? new byte[0] : data;
        if (children != null) {
            List<Znode> sorted = new ArrayList<>(children);
            sorted.sort(Comparator.comparing(Znode::name));
            children = List.copyOf(sorted);
        }
    }

    /** {@return the last path segment, {@code "/"} for the root} */
    String name() {
        return path.equals("/") ? "/" : BatonPaths.nodeName(path);
    }

    /** {@return the children read, or an empty list when none were read} */
    List<Znode> childList() {
        return children == null ? List.of() : children;
    }

    /** {@return true if the children were read} */
    boolean childrenRead() {
        return children != null;
    }

    /** {@return how many children the node has: those read, or the stat's count when they were not read} */
    int childCount() {
        return children != null ? children.size() : stat.getNumChildren();
    }

    /** {@return the session owning this ephemeral node, or 0 for a persistent node} */
    long ephemeralOwner() {
        return stat.getEphemeralOwner();
    }

    /**
     * {@return the child, if it was read}
     *
     * @param name a child's name
     */
    Optional<Znode> child(String name) {
        return childList().stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /**
     * Rebuilds the tree under {@code root} from a cache's nodes. Children are those the cache holds (a cached
     * stat's child count may be older than the server's; the cache's own nodes are current).
     *
     * @param nodes every node the cache holds
     * @param root the top node's path
     * @return the tree, or empty if the cache does not hold {@code root}
     */
    static Optional<Znode> fromCache(Iterable<ChildData> nodes, String root) {
        Map<String, ChildData> byPath = new HashMap<>();
        Map<String, List<String>> childrenOf = new HashMap<>();
        for (ChildData node : nodes) {
            byPath.put(node.path(), node);
            if (!node.path().equals(root) && !node.path().equals("/")) {
                childrenOf.computeIfAbsent(BatonPaths.parent(node.path()), p -> new ArrayList<>()).add(node.path());
            }
        }
        return byPath.containsKey(root) ? Optional.of(build(root, byPath, childrenOf)) : Optional.empty();
    }

    private static Znode build(String path, Map<String, ChildData> byPath, Map<String, List<String>> childrenOf) {
        ChildData node = byPath.get(path);
        List<Znode> children = new ArrayList<>();
        for (String child : childrenOf.getOrDefault(path, List.of())) {
            children.add(build(child, byPath, childrenOf));
        }
        return new Znode(path, node.data(), node.stat(), children);
    }
}
