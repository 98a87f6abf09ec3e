package dev.baton;

/** Sets a node's data; returns the node's new stat. Not thread-safe: one builder per call. */
public interface SetDataBuilder extends PathAndBytesable<org.apache.zookeeper.data.Stat>,
        Backgroundable<BackgroundPathAndBytesable> {

    /**
     * {@return this builder}
     *
     * @param version the version the node must have; {@code -1} (the default) for any
     */
    SetDataBuilder withVersion(int version);

    /** {@return this builder, compressing the data with the client's {@link CompressionProvider}} */
    SetDataBuilder compressed();
}
