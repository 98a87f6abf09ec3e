package dev.baton.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Path helpers: validation with messages that name the path and the reason, and joining/splitting of
 * ZooKeeper paths. Stateless and thread-safe.
 */
public final class BatonPaths {
    /** The prefix of a protected node's name: {@code _c_<uuid>-}. */
    public static final String PROTECTED_PREFIX = "_c_";

    private static final int UUID_LENGTH = 36;

    private BatonPaths() {
    }

    /**
     * Checks a path as ZooKeeper would, with a clearer message.
     *
     * @param path the path
     * @return the path
     * @throws NullPointerException if {@code path} is null
     * @throws IllegalArgumentException if the path is empty, has no leading {@code /}, ends with {@code /},
     *         has an empty, {@code .} or {@code ..} segment, or contains a control or reserved character
     */
    public static String validate(String path) {
        return validate(path, false);
    }

    /**
     * Checks a path; a sequential create may end with {@code /} (the server appends the sequence).
     *
     * @param path the path
     * @param sequential true if the path is for a sequential create
     * @return the path
     * @throws NullPointerException if {@code path} is null
     * @throws IllegalArgumentException as for {@link #validate(String)}
     */
    public static String validate(String path, boolean sequential) {
        Objects.requireNonNull(path, "path");
        if (path.isEmpty()) {
            throw invalid(path, "path must not be empty");
        }
        if (path.charAt(0) != '/') {
            throw invalid(path, "path must start with '/'");
        }
        if (path.length() == 1) {
            return path;
        }
        if (path.charAt(path.length() - 1) == '/' && !sequential) {
            throw invalid(path, "path must not end with '/'");
        }
        int segmentStart = 1;
        for (int i = 1; i <= path.length(); i++) {
            char c = i < path.length() ? path.charAt(i) : '/';
            if (c == '/') {
                int length = i - segmentStart;
                if (length == 0 && i < path.length()) {
                    throw invalid(path, "empty segment ('//') at index " + (i - 1));
                }
                if ((length == 1 && path.charAt(segmentStart) == '.')
                        || (length == 2 && path.charAt(segmentStart) == '.' && path.charAt(segmentStart + 1) == '.')) {
                    throw invalid(path, "relative segment '" + path.substring(segmentStart, i) + "' at index "
                            + segmentStart);
                }
                segmentStart = i + 1;
            } else if (isForbidden(c)) {
                throw invalid(path, String.format("invalid character \\u%04x at index %d", (int) c, i));
            }
        }
        return path;
    }

    private static boolean isForbidden(char c) {
        return c == 0
                || (c > '\u0000' && c <= '\u001f')
                || (c >= '\u007f' && c <= '\u009f')
                || (c >= '\ud800' && c <= '\uf8ff')
                || c >= '\ufff0';
    }

    private static IllegalArgumentException invalid(String path, String reason) {
        return new IllegalArgumentException("Invalid path \"" + printable(path) + "\": " + reason);
    }

    private static String printable(String path) {
        StringBuilder out = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (isForbidden(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * Joins a parent path and a child name.
     *
     * @param parent a valid path
     * @param child a node name (no {@code /})
     * @return {@code parent + "/" + child}, without a doubled slash under the root
     */
    public static String makePath(String parent, String child) {
        Objects.requireNonNull(parent, "parent");
        Objects.requireNonNull(child, "child");
        return parent.equals("/") ? "/" + child : parent + "/" + child;
    }

    /**
     * {@return the last segment of the path; {@code ""} for the root}
     *
     * @param path a valid path
     */
    public static String nodeName(String path) {
        int slash = path.lastIndexOf('/');
        return path.substring(slash + 1);
    }

    /**
     * {@return the parent path; {@code "/"} for a child of the root}
     *
     * @param path a valid path other than the root
     * @throws IllegalArgumentException for the root
     */
    public static String parent(String path) {
        int slash = path.lastIndexOf('/');
        if (path.length() <= 1 || slash < 0) {
            throw new IllegalArgumentException("Path \"" + path + "\" has no parent");
        }
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    /**
     * The sequence number of a recipe node: the number after the last occurrence of the recipe's node name
     * ({@code lock-}, {@code latch-}, {@code __READ__}, ...), as Curator reads it; the protection prefix is
     * ignored.
     *
     * @param node a node name, such as {@code _c_<uuid>-latch-0000000007}
     * @param nodeName the recipe's node name, such as {@code latch-}
     * @return the sequence, or {@link Long#MAX_VALUE} if the name has none (such nodes sort last)
     */
    public static long sequence(String node, String nodeName) {
        int at = node.lastIndexOf(nodeName);
        if (at < 0) {
            return Long.MAX_VALUE;
        }
        try {
            return Long.parseLong(node.substring(at + nodeName.length()));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Puts recipe nodes in queue order, as Curator does: by {@link #sequence}, compared as a number, which gives
     * Curator's order for every sequence ZooKeeper produces before its counter wraps at 2^31. Names without
     * {@code nodeName} are left out.
     *
     * @param children node names
     * @param nodeName the recipe's node name
     * @return a new list in queue order
     */
    public static List<String> sortBySequence(Collection<String> children, String nodeName) {
        List<String> nodes = new ArrayList<>(children.size());
        for (String child : children) {
            if (child.contains(nodeName)) {
                nodes.add(child);
            }
        }
        nodes.sort(Comparator.comparingLong((String n) -> sequence(n, nodeName)).thenComparing(n -> n));
        return nodes;
    }

    /**
     * Tells whether a node name carries the protection prefix {@code _c_<uuid>-}.
     *
     * @param nodeName a node name
     * @return true if the name starts with a protection prefix
     */
    public static boolean isProtected(String nodeName) {
        return nodeName.startsWith(PROTECTED_PREFIX)
                && nodeName.length() > PROTECTED_PREFIX.length() + UUID_LENGTH
                && nodeName.charAt(PROTECTED_PREFIX.length() + UUID_LENGTH) == '-';
    }

    /**
     * Removes the protection prefix from a node name.
     *
     * @param nodeName a node name
     * @return the name without {@code _c_<uuid>-}; the name itself if it has none
     */
    public static String stripProtection(String nodeName) {
        return isProtected(nodeName) ? nodeName.substring(PROTECTED_PREFIX.length() + UUID_LENGTH + 1) : nodeName;
    }

    /**
     * Builds the protection prefix for an id.
     *
     * @param protectedId a UUID string
     * @return {@code "_c_" + protectedId + "-"}
     */
    public static String protectedPrefix(String protectedId) {
        return PROTECTED_PREFIX + protectedId + "-";
    }
}
