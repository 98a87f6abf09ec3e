package dev.baton;

/** Deletes a node. Not thread-safe: one builder per call. */
public interface DeleteBuilder extends Pathable<Void>, Backgroundable<BackgroundPathable> {

    /**
     * If the delete fails for a connection reason, the caller still gets the exception and the client keeps
     * retrying the delete in the background until it succeeds, the node is gone, or the client closes.
     *
     * @return this builder
     */
    DeleteBuilder guaranteed();

    /** {@return this builder, deleting the node's descendants first} */
    DeleteBuilder deletingChildrenIfNeeded();

    /**
     * {@return this builder}
     *
     * @param version the version the node must have; {@code -1} (the default) for any
     */
    DeleteBuilder withVersion(int version);

    /** {@return this builder; a node that does not exist is not an error} */
    DeleteBuilder quietly();
}
