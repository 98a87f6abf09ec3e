package dev.baton.testing;

import org.apache.zookeeper.server.NIOServerCnxnFactory;

/**
 * ZooKeeper's NIO connection factory, minus the warning "maxCnxns is not configured" that it logs at every
 * start when the JVM-wide connection limit ({@code zookeeper.maxCnxns}) is left at its default, no limit,
 * which is what an embedded test server wants. The per-host limit is set separately by
 * {@code configure(...)}.
 */
final class QuietNioServerCnxnFactory extends NIOServerCnxnFactory {

    @Override
    protected void initMaxCnxns() {
        maxCnxns = Math.max(0, Integer.getInteger("zookeeper.maxCnxns", 0));
    }
}
