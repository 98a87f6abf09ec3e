/**
 * Real ZooKeeper servers for tests.
 *
 * <ul>
 *   <li>{@link dev.baton.testing.EmbeddedZooKeeper}: a standalone ZooKeeper server inside the test JVM, on a
 *       free loopback port, that can be stopped, restarted with its data and sessions, and counts the requests
 *       clients send it.</li>
 *   <li>{@link dev.baton.testing.EmbeddedZooKeeperExtension}: the JUnit 5 extension that runs one per test
 *       class ({@code static} field) or per test (instance field).</li>
 *   <li>{@link dev.baton.testing.SessionExpirer}: ends a client's session on the server, as a session timeout
 *       would, so tests can exercise {@code Expired} handling in seconds.</li>
 * </ul>
 *
 * <p>This module depends only on ZooKeeper, SLF4J and the JUnit Jupiter API, never on the Baton client, so the
 * client's own tests can use it.
 */
package dev.baton.testing;
