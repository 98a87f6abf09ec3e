package dev.baton;

/** What a {@link BatonEvent} reports: the operation that completed in the background, or a watch that fired. */
public enum BatonEventType {
    /** {@code create()} completed. */
    CREATE,
    /** {@code delete()} completed. */
    DELETE,
    /** {@code checkExists()} completed. */
    EXISTS,
    /** {@code getData()} completed. */
    GET_DATA,
    /** {@code setData()} completed. */
    SET_DATA,
    /** {@code getChildren()} completed. */
    CHILDREN,
    /** {@code sync()} completed. */
    SYNC,
    /** {@code getACL()} completed. */
    GET_ACL,
    /** {@code setACL()} completed. */
    SET_ACL,
    /** {@code transaction()} completed. */
    TRANSACTION,
    /** {@code watchers().add()} completed. */
    ADD_WATCH,
    /** {@code watchers().remove(...)} completed. */
    REMOVE_WATCHES,
    /** A watch set with {@code watched()} fired; {@link BatonEvent#watchedEvent()} tells what happened. */
    WATCHED,
    /** The client is closing; sent to event listeners once. */
    CLOSING
}
