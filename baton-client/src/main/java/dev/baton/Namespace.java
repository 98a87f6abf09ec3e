package dev.baton;

import dev.baton.internal.BatonPaths;
import org.jspecify.annotations.Nullable;

/**
 * Puts user paths under a namespace on the way in and takes it off on the way out. Immutable.
 */
final class Namespace {
    static final Namespace NONE = new Namespace("");

    private final String name;   // without leading slash, "" for none
    private final String prefix; // "/name" or ""

    private Namespace(String name) {
        this.name = name;
        this.prefix = name.isEmpty() ? "" : "/" + name;
    }

    static Namespace of(@Nullable String namespace) {
        String n = normalize(namespace);
        return n.isEmpty() ? NONE : new Namespace(n);
    }

    /** Accepts "app", "/app", "app/x"; returns the form without a leading slash, validated. */
    static String normalize(@Nullable String namespace) {
        if (namespace == null || namespace.isEmpty() || namespace.equals("/")) {
            return "";
        }
        String withSlash = namespace.startsWith("/") ? namespace : "/" + namespace;
        try {
            BatonPaths.validate(withSlash);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid namespace \"" + namespace + "\": " + e.getMessage(), e);
        }
        return withSlash.substring(1);
    }

    String name() {
        return name;
    }

    /** The namespace's own path, or null for none. */
    @Nullable String rootPath() {
        return prefix.isEmpty() ? null : prefix;
    }

    String fix(String userPath) {
        if (prefix.isEmpty()) {
            return userPath;
        }
        return userPath.equals("/") ? prefix : prefix + userPath;
    }

    String unfix(String fullPath) {
        if (prefix.isEmpty() || fullPath == null) {
            return fullPath;
        }
        if (fullPath.equals(prefix)) {
            return "/";
        }
        if (fullPath.startsWith(prefix) && fullPath.charAt(prefix.length()) == '/') {
            return fullPath.substring(prefix.length());
        }
        return fullPath;
    }
}
