package dev.baton;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/** Reads a node's data. Not thread-safe: one builder per call. */
public interface GetDataBuilder extends Pathable<byte[]>, Backgroundable<BackgroundPathable> {

    /**
     * {@return this builder}
     *
     * @param stat receives the node's stat
     */
    GetDataBuilder storingStatIn(Stat stat);

    /** {@return this builder, leaving a watch whose event goes to {@link BatonClient#getEventListenable()}} */
    GetDataBuilder watched();

    /**
     * {@return this builder}
     *
     * @param watcher told once when the node changes or is deleted
     */
    GetDataBuilder usingWatcher(Watcher watcher);

    /** {@return this builder, decompressing with the client's {@link CompressionProvider}} */
    GetDataBuilder decompressed();
}
