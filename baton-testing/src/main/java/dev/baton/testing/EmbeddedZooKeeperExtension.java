package dev.baton.testing;

import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that runs an {@link EmbeddedZooKeeper} for a test class or for each test.
 *
 * <p>Registered on a {@code static} field, one server serves the whole class: it starts before the first
 * test and is closed, its data directory deleted, after the last one, whether the tests passed or not. If a
 * test stopped the server, it is started again (same port, same data) after that test, so the next test finds
 * it running.
 * <pre>{@code
 * @RegisterExtension
 * static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();
 *
 * @Test
 * void works() throws Exception {
 *     try (ZooKeeper client = new ZooKeeper(zk.connectString(), 10_000, event -> { })) { ... }
 * }
 * }</pre>
 *
 * <p>Registered on an instance field, each test gets a fresh server (new port, empty data), closed after the
 * test. {@code @Nested} classes share the server of the enclosing class.
 *
 * <p>Thread-safety: the accessors may be called from any thread; the extension is not meant for test
 * methods of one class running concurrently.
 */
public final class EmbeddedZooKeeperExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final Supplier<EmbeddedZooKeeper> factory;

    /** Serializes {@link #ensureRunning()}; private, so a caller synchronizing on the extension cannot stall it. */
    private final Object lock = new Object();

    /** The server of the current class or test; null outside the extension's scope. */
    private volatile @Nullable EmbeddedZooKeeper server;
    /** Unique id of the context that started the server in beforeAll; {@code null} in per-test mode. */
    private volatile @Nullable String classScopeOwner;

    /** Creates an extension whose servers have the default settings of {@link EmbeddedZooKeeper}. */
    public EmbeddedZooKeeperExtension() {
        this.factory = EmbeddedZooKeeper::new;
    }

    /**
     * Creates an extension whose servers are built by {@code builder} (one build per server).
     *
     * @param builder the server settings; not modified, but not to be changed after this call either
     */
    public EmbeddedZooKeeperExtension(EmbeddedZooKeeper.Builder builder) {
        Objects.requireNonNull(builder, "builder");
        this.factory = builder::build;
    }

    /**
     * Starts the class-wide server (static registration). Called by JUnit.
     *
     * @param context the class context
     */
    @Override
    public void beforeAll(ExtensionContext context) {
        if (server == null) { // an enclosing class of a @Nested class already started it otherwise
            server = factory.get().start();
            classScopeOwner = context.getUniqueId();
        }
    }

    /**
     * Starts a fresh server for this test unless a class-wide one is running. Called by JUnit.
     *
     * @param context the test context
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        if (classScopeOwner == null) {
            server = factory.get().start();
        }
    }

    /**
     * Closes the per-test server, or restarts the class-wide one if the test left it stopped. Called by JUnit.
     *
     * @param context the test context
     */
    @Override
    public void afterEach(ExtensionContext context) {
        if (classScopeOwner == null) {
            EmbeddedZooKeeper s = server;
            server = null;
            if (s != null) {
                s.close();
            }
        } else {
            ensureRunning();
        }
    }

    /**
     * Closes the class-wide server and deletes its data directory. Called by JUnit.
     *
     * @param context the class context
     */
    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getUniqueId().equals(classScopeOwner)) {
            EmbeddedZooKeeper s = server;
            server = null;
            classScopeOwner = null;
            if (s != null) {
                s.close();
            }
        }
    }

    /**
     * Starts the server again (same port, same data) if a test stopped it; does nothing if it is running. If a
     * test closed the server, a fresh one (new port, empty data) takes its place.
     *
     * @return the running server
     * @throws IllegalStateException if there is no server (outside the extension's scope)
     */
    public EmbeddedZooKeeper ensureRunning() {
        synchronized (lock) {
            EmbeddedZooKeeper s = server();
            if (s.isClosed()) {
                s = factory.get().start();
                server = s;
            } else if (!s.isRunning()) {
                s.restart();
            }
            return s;
        }
    }

    /**
     * The server of the current class or test.
     *
     * @return the server
     * @throws IllegalStateException if called outside the extension's scope (no server yet or any more)
     */
    public EmbeddedZooKeeper server() {
        EmbeddedZooKeeper s = server;
        if (s == null) {
            throw new IllegalStateException("no ZooKeeper server: the extension is not active here "
                    + "(register it with @RegisterExtension and use it inside the test class)");
        }
        return s;
    }

    /**
     * The connect string of the server, {@code "127.0.0.1:<port>"}.
     *
     * @return the connect string
     * @throws IllegalStateException if there is no server
     */
    public String connectString() {
        return server().connectString();
    }

    /**
     * The client port of the server.
     *
     * @return the port on 127.0.0.1
     * @throws IllegalStateException if there is no server
     */
    public int port() {
        return server().port();
    }
}
