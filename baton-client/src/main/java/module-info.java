/**
 * The Baton client: one ZooKeeper session kept healthy (connection states, retries, a new session after expiry)
 * and the fluent operations, each blocking, as a {@code CompletableFuture}, or with a callback.
 *
 * <p>Exported: {@code dev.baton} (the client and its operation builders), {@code dev.baton.listen},
 * {@code dev.baton.retry} and {@code dev.baton.state}. {@code dev.baton.internal} holds helpers shared with
 * Baton's own modules only.
 */
module dev.baton.client {
    requires static transitive org.jspecify;
    requires static com.google.errorprone.annotations;
    requires transitive zookeeper;
    requires org.slf4j;

    exports dev.baton;
    exports dev.baton.listen;
    exports dev.baton.retry;
    exports dev.baton.state;
    exports dev.baton.internal to dev.baton.recipes, dev.baton.discovery, dev.baton.spring;
}
