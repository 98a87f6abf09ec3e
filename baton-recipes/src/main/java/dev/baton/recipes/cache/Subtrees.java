package dev.baton.recipes.cache;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;

/** Path arithmetic of a cached subtree, for {@link BatonCache}. */
final class Subtrees {
    private Subtrees() {
    }

    /** {@return what the paths of {@code path}'s descendants start with: {@code path + "/"}, or {@code "/"}} */
    static String childPrefix(String path) {
        return path.equals("/") ? "/" : path + "/";
    }

    /** {@return true if {@code path} is {@code ancestor} or below it} */
    static boolean isAtOrBelow(String ancestor, String path) {
        return path.equals(ancestor) || path.startsWith(childPrefix(ancestor));
    }

    /**
     * The paths ordered for reporting removals: every node after its descendants, siblings in the order of their
     * names. (The cache's own order sorts {@code /a-b} between {@code /a} and {@code /a/x}, as {@code '-'} comes
     * before {@code '/'}, so reversing it would not keep a subtree together.)
     */
    static List<String> childrenFirst(List<String> paths) {
        List<String> byTree = new ArrayList<>(paths);
        // With the separator sorted below every character a path may hold, a parent comes right before its subtree.
        byTree.sort(Comparator.comparing((String p) -> p.replace('/', '\u0000')));
        List<String> ordered = new ArrayList<>(byTree.size());
        Deque<String> open = new ArrayDeque<>();
        for (String path : byTree) {
            while (!open.isEmpty() && !isAncestor(open.peek(), path)) {
                ordered.add(open.pop());
            }
            open.push(path);
        }
        while (!open.isEmpty()) {
            ordered.add(open.pop());
        }
        return ordered;
    }

    static boolean isAncestor(String ancestor, String path) {
        return ancestor.equals("/") ? !path.equals("/") : path.startsWith(ancestor + "/");
    }
}
