package dev.baton.recipes.cache;

import dev.baton.internal.BatonPaths;
import java.util.Arrays;
import java.util.Objects;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * One cached node: its path, its {@link Stat} and its data.
 *
 * <p>Immutable by convention: the cache hands out the array it holds without copying (a copy per read would
 * double the cost of large caches), so callers must not modify {@link #data()} or {@link #stat()}. Two instances
 * are equal when path, stat and data contents are equal; they sort by path. {@link #getPath()},
 * {@link #getStat()} and {@link #getData()} are Curator's names for the components, for ported code.
 *
 * @param path the node's full path (without the client's namespace)
 * @param stat the node's stat as last read; see {@link BatonCache} for which fields are kept current
 * @param data the node's data, or null in a {@link BatonCache.Option#DATA_LESS} cache
 */
public record ChildData(
        String path,
        Stat stat,
        // ZooKeeper's byte array on purpose, handed out without a copy (see above); equals, hashCode and toString
        // are written for it.
        @SuppressWarnings("ArrayRecordComponent") byte @Nullable [] data) implements Comparable<ChildData> {

    /**
     * Checks the components.
     *
     * @throws NullPointerException if {@code path} or {@code stat} is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     * @param path the path
     * @param stat the stat
     * @param data the data
     */
    public ChildData {
        BatonPaths.validate(Objects.requireNonNull(path, "path"));
        Objects.requireNonNull(stat, "stat");
    }

    /** {@return {@link #path()}, under Curator's name} */
    public String getPath() {
        return path;
    }

    /** {@return {@link #stat()}, under Curator's name} */
    public Stat getStat() {
        return stat;
    }

    /** {@return {@link #data()}, under Curator's name} */
    public byte @Nullable [] getData() {
        return data;
    }

    /**
     * Orders by path, as Curator's {@code ChildData} does.
     *
     * @param other another node
     * @return the comparison of the paths
     */
    @Override
    public int compareTo(ChildData other) {
        return path.compareTo(other.path);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ChildData other && path.equals(other.path) && stat.equals(other.stat)
                && Arrays.equals(data, other.data);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * path.hashCode() + stat.hashCode()) + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "ChildData[path=" + path + ", czxid=" + stat.getCzxid() + ", mzxid=" + stat.getMzxid()
                + ", version=" + stat.getVersion() + ", data=" + (data == null ? "null" : data.length + " bytes")
                + "]";
    }
}
