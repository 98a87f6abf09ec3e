/**
 * Baton's test kit: embedded and out-of-process ZooKeeper servers, network and process faults, session expiry,
 * JUnit 5 extensions, and the history checkers that judge recipes under faults.
 */
module dev.baton.testing {
    requires static transitive org.jspecify;
    requires static com.google.errorprone.annotations;
    requires transitive zookeeper;
    requires transitive org.junit.jupiter.api;
    requires org.slf4j;
    // The TLS context type of the in-process TLS server's connection factory (ZooKeeper's Netty).
    requires io.netty.handler;

    exports dev.baton.testing;
}
