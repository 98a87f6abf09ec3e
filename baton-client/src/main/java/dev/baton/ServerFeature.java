package dev.baton;

import org.jspecify.annotations.Nullable;

/**
 * A ZooKeeper feature that servers of older releases (or servers not configured for it) lack. A call that needs
 * one fails at once on such a server with an {@link UnsupportedServerFeatureException} naming the feature, what it
 * needs and the server's version; see {@link #requirement()}.
 */
public enum ServerFeature {
    /** Persistent and recursive watches ({@code addWatch}), used by {@code watchers().add()} and the caches. */
    PERSISTENT_WATCHES("persistent and recursive watches (addWatch)", "3.6.0", null),
    /** TTL nodes ({@code CreateMode.PERSISTENT_WITH_TTL}, {@code PERSISTENT_SEQUENTIAL_WITH_TTL}). */
    TTL_NODES("TTL nodes", "3.5.3", "zookeeper.extendedTypesEnabled=true");

    private final String description;
    private final String since;
    /** The server setting the feature also needs; null for none. */
    private final @Nullable String setting;

    ServerFeature(String description, String since, @Nullable String setting) {
        this.description = description;
        this.since = since;
        this.setting = setting;
    }

    /** {@return what the feature is, e.g. {@code "persistent and recursive watches (addWatch)"}} */
    public String description() {
        return description;
    }

    /** {@return the first ZooKeeper release that has the feature, e.g. {@code "3.6.0"}} */
    public String since() {
        return since;
    }

    /**
     * What a server needs for the feature, e.g. {@code "ZooKeeper 3.6.0 or newer"} or {@code "ZooKeeper 3.5.3 or
     * newer, started with zookeeper.extendedTypesEnabled=true"}.
     *
     * @return the requirement, in words
     */
    public String requirement() {
        return "ZooKeeper " + since + " or newer" + (setting == null ? "" : ", started with " + setting);
    }

    /** True if a server of a new enough release may still lack the feature for want of a setting. */
    boolean needsSetting() {
        return setting != null;
    }

    /** True if a release of {@code version} (e.g. {@code 3.5.10}) is too old for the feature, whatever its settings. */
    boolean isMissingIn(String version) {
        return compare(version, since) < 0;
    }

    /** Compares two dotted versions by their numbers; a part that is not a number counts as 0. */
    static int compare(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = Integer.compare(part(x, i), part(y, i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static int part(String[] parts, int i) {
        try {
            return i < parts.length ? Integer.parseInt(parts[i]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
