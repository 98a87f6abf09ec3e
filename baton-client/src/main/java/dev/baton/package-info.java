/**
 * The client: {@link dev.baton.BatonClient} keeps one ZooKeeper session healthy (retries, connection-state
 * events, recovery after session expiry) and offers ZooKeeper's operations as fluent builders, each with a
 * synchronous and an asynchronous form. {@link dev.baton.Baton} builds a client.
 */
@NullMarked
package dev.baton;

import org.jspecify.annotations.NullMarked;
