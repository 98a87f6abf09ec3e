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
 *   <li>{@link dev.baton.testing.ZooKeeperEnsemble}: a real 3- or 5-server quorum, one JVM per server, that
 *       can lose servers (SIGKILL, SIGSTOP), its quorum, and, through {@link dev.baton.testing.TcpProxy}
 *       proxies, the network between clients and servers or between servers; {@link dev.baton.testing.ClientLink}
 *       cuts one client alone; {@link dev.baton.testing.ZooKeeperEnsembleExtension} runs one for a JUnit 5
 *       test.</li>
 *   <li>{@link dev.baton.testing.DriverProcess} and {@link dev.baton.testing.DriverMain}: a client in its own
 *       JVM, driven by line commands, that can be paused and killed for real;
 *       {@link dev.baton.testing.ZooKeeperClientDriver} is a ready-made one. {@link dev.baton.testing.KitResources}
 *       proves that no process or directory of the kit outlives the tests.</li>
 * </ul>
 *
 * <p>This module depends only on ZooKeeper, SLF4J and the JUnit Jupiter API, never on the Baton client, so the
 * client's own tests can use it.
 */
@NullMarked
package dev.baton.testing;

import org.jspecify.annotations.NullMarked;
