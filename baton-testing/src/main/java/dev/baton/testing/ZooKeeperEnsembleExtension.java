package dev.baton.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.function.Executable;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JUnit 5 extension that gives a test class (static field) or each test (instance field) a real
 * {@link ZooKeeperEnsemble} with its fault controls, and cleans up everything the test started: server
 * processes, proxies, client links, driver JVMs, temporary directories, whether the tests pass or fail.
 *
 * <pre>{@code
 * @RegisterExtension
 * static ZooKeeperEnsembleExtension zk = ZooKeeperEnsembleExtension.builder().servers(3).proxies(true).build();
 *
 * @Test
 * void leaderCrash() throws Exception {
 *     DriverProcess client = zk.startDriver(DriverProcess.builder(ZooKeeperClientDriver.class));
 *     ClientLink link = zk.newClientLink();
 *     int old = zk.ensemble().killLeader();
 *     ...
 * }
 * }</pre>
 *
 * <h2>Scopes</h2>
 * What a test registers ({@link #register}, {@link #startDriver}, {@link #newClientLink}) while it runs is
 * closed after that test; what is registered outside a test (in {@code @BeforeAll}) is closed after the class.
 * With a class-wide ensemble, after each test the extension (unless {@link Builder#resetAfterEach(boolean)} is
 * off) heals every partition, resumes paused servers, starts stopped ones and waits for a leader, so the next
 * test starts from a healthy quorum.
 *
 * <h2>Checks</h2>
 * {@link #afterEachCheck(Executable)} and {@link #afterAllCheck(Executable)} add verifications (for example a
 * history checker's) that run after each test or after the class, once that scope's resources are closed; a
 * check that throws fails the test (or the class) with its message. Clean-up runs even when a check fails.
 *
 * <h2>Logs</h2>
 * When a test fails, the server and driver logs are copied to {@code target/baton-kit-logs/<class>/<test>/}
 * (if a {@code target} directory exists in the working directory, as under Maven) before they are deleted.
 *
 * <p>Thread-safety: the accessors and {@link #register} may be called from any thread; the extension is not
 * meant for test methods of one class running concurrently.
 */
public final class ZooKeeperEnsembleExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperEnsembleExtension.class);

    private final ZooKeeperEnsemble.Builder ensembleBuilder;
    private final boolean resetAfterEach;
    /** Where logs of failed tests go; null to not keep them. */
    private final @Nullable Path logsDirectory;
    private final List<Executable> eachChecks = new CopyOnWriteArrayList<>();
    private final List<Executable> allChecks = new CopyOnWriteArrayList<>();
    private final Deque<AutoCloseable> testResources = new ArrayDeque<>();
    private final Deque<AutoCloseable> classResources = new ArrayDeque<>();
    private final List<DriverProcess> testDrivers = new CopyOnWriteArrayList<>();

    /** The ensemble of the current class or test; null outside the extension's scope. */
    private volatile @Nullable ZooKeeperEnsemble ensemble;
    /** Unique id of the context that started the ensemble in beforeAll; {@code null} in per-test mode. */
    private volatile @Nullable String classScopeOwner;
    private volatile boolean inTest;

    /**
     * An extension whose ensembles are built by {@code builder} (one build per ensemble), with the defaults of
     * {@link Builder}.
     *
     * @param builder the ensemble settings; not to be changed afterwards
     */
    public ZooKeeperEnsembleExtension(ZooKeeperEnsemble.Builder builder) {
        this(Objects.requireNonNull(builder, "builder"), true, defaultLogsDirectory());
    }

    private ZooKeeperEnsembleExtension(ZooKeeperEnsemble.Builder builder, boolean resetAfterEach,
            @Nullable Path logs) {
        this.ensembleBuilder = builder;
        this.resetAfterEach = resetAfterEach;
        this.logsDirectory = logs;
    }

    /**
     * A builder: 3 servers, no proxies, reset after each test.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The ensemble of the current class or test.
     *
     * @return the running ensemble
     * @throws IllegalStateException if called outside the extension's scope
     */
    public ZooKeeperEnsemble ensemble() {
        ZooKeeperEnsemble e = ensemble;
        if (e == null) {
            throw new IllegalStateException("no ZooKeeper ensemble: the extension is not active here "
                    + "(register it with @RegisterExtension and use it inside the test class)");
        }
        return e;
    }

    /**
     * The ensemble's connect string; see {@link ZooKeeperEnsemble#connectString()}.
     *
     * @return the connect string
     */
    public String connectString() {
        return ensemble().connectString();
    }

    /**
     * Opens a {@link ClientLink} closed at the end of the current scope (test, or class outside a test).
     *
     * @return the link
     */
    public ClientLink newClientLink() {
        return register(ensemble().newClientLink());
    }

    /**
     * Starts a driver JVM, closed (killed) at the end of the current scope; its log is kept if the test fails.
     *
     * @param builder the driver's settings
     * @return the running driver
     */
    public DriverProcess startDriver(DriverProcess.Builder builder) {
        DriverProcess driver = register(builder.start());
        if (inTest) {
            testDrivers.add(driver);
        }
        return driver;
    }

    /**
     * Closes {@code resource} at the end of the current scope: after this test if called while a test runs,
     * else after the class. Resources close in reverse order of registration.
     *
     * @param resource anything to close
     * @param <T> its type
     * @return {@code resource}
     */
    public <T extends AutoCloseable> T register(T resource) {
        Objects.requireNonNull(resource, "resource");
        Deque<AutoCloseable> scope = inTest ? testResources : classResources;
        synchronized (scope) {
            scope.push(resource);
        }
        return resource;
    }

    /**
     * Adds a verification run after every test, once the test's resources are closed; if it throws, the test
     * fails with that error.
     *
     * @param check the verification
     * @return this extension
     */
    public ZooKeeperEnsembleExtension afterEachCheck(Executable check) {
        eachChecks.add(Objects.requireNonNull(check, "check"));
        return this;
    }

    /**
     * Adds a verification run after the class, once the class's resources are closed and before the ensemble
     * is; if it throws, the class fails with that error.
     *
     * @param check the verification
     * @return this extension
     */
    public ZooKeeperEnsembleExtension afterAllCheck(Executable check) {
        allChecks.add(Objects.requireNonNull(check, "check"));
        return this;
    }

    /**
     * Starts the class-wide ensemble (static registration). Called by JUnit.
     *
     * @param context the class context
     */
    @Override
    public void beforeAll(ExtensionContext context) {
        if (ensemble == null) {
            classScopeOwner = context.getUniqueId();
            ensemble = startEnsemble();
        }
    }

    /**
     * Starts a fresh ensemble for this test unless a class-wide one runs. Called by JUnit.
     *
     * @param context the test context
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        inTest = true;
        if (classScopeOwner == null) {
            ensemble = startEnsemble();
        }
    }

    /**
     * Closes what the test registered, runs the after-each checks, then closes the per-test ensemble or resets
     * the class-wide one. Called by JUnit.
     *
     * @param context the test context
     * @throws Exception the first failure of a check or of the clean-up (the others suppressed); an
     *     {@link Error} (such as an assertion failure) is thrown as it is
     */
    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        inTest = false;
        List<Throwable> failures = new ArrayList<>();
        boolean failed = context.getExecutionException().isPresent();
        if (failed) {
            keepLogs(context);
        }
        testDrivers.clear();
        closeAll(testResources, failures);
        runChecks(eachChecks, failures);
        if (classScopeOwner == null) {
            ZooKeeperEnsemble e = ensemble;
            ensemble = null;
            closeQuietly(e, failures);
        } else if (resetAfterEach) {
            try {
                reset(ensemble());
            } catch (RuntimeException | Error e) {
                failures.add(e);
            }
        }
        throwFirst(failures);
    }

    /**
     * Closes what was registered outside tests, runs the after-all checks and closes the class-wide ensemble.
     * Called by JUnit.
     *
     * @param context the class context
     * @throws Exception the first failure of a check or of the clean-up (the others suppressed); an
     *     {@link Error} (such as an assertion failure) is thrown as it is
     */
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (!context.getUniqueId().equals(classScopeOwner)) {
            return;
        }
        List<Throwable> failures = new ArrayList<>();
        closeAll(classResources, failures);
        runChecks(allChecks, failures);
        ZooKeeperEnsemble e = ensemble;
        ensemble = null;
        classScopeOwner = null;
        closeQuietly(e, failures);
        throwFirst(failures);
    }

    private ZooKeeperEnsemble startEnsemble() {
        ZooKeeperEnsemble e = ensembleBuilder.build();
        try {
            return e.start();
        } catch (RuntimeException | Error t) {
            e.close();
            throw t;
        }
    }

    /** Brings a class-wide ensemble back to health for the next test. */
    private static void reset(ZooKeeperEnsemble e) {
        e.healAll();
        for (int id : e.serverIds()) {
            if (e.isPaused(id)) {
                e.resume(id);
            }
        }
        boolean restarted = false;
        for (int id : e.serverIds()) {
            if (!e.isRunning(id)) {
                restarted = true;
            }
        }
        if (restarted) {
            e.regainQuorum();
        }
        for (int id : e.serverIds()) {
            awaitServing(e, id);
        }
    }

    private static void awaitServing(ZooKeeperEnsemble e, int id) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!e.isServing(id)) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("server " + id + " does not serve after the reset: " + e);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while resetting " + e, ie);
            }
        }
    }

    private void keepLogs(ExtensionContext context) {
        if (logsDirectory == null) {
            return;
        }
        try {
            Path dir = logsDirectory.resolve(context.getRequiredTestClass().getName())
                    .resolve(context.getRequiredTestMethod().getName());
            ZooKeeperEnsemble e = ensemble;
            if (e != null) {
                e.copyLogsTo(dir);
            }
            int n = 0;
            for (DriverProcess d : testDrivers) {
                d.copyLogTo(dir.resolve("driver-" +  ++n + "-" + d.pid() + ".log"));
            }
            LOG.warn("test failed; kit logs kept in {}", dir.toAbsolutePath());
        } catch (RuntimeException e) {
            LOG.warn("cannot keep the kit's logs", e);
        }
    }

    private static void closeAll(Deque<AutoCloseable> resources, List<Throwable> failures) {
        while (true) {
            AutoCloseable r;
            synchronized (resources) {
                r = resources.poll();
            }
            if (r == null) {
                return;
            }
            closeQuietly(r, failures);
        }
    }

    private static void closeQuietly(@Nullable AutoCloseable r, List<Throwable> failures) {
        if (r == null) {
            return;
        }
        try {
            r.close();
        } catch (Throwable t) {
            failures.add(t);
        }
    }

    private static void runChecks(List<Executable> checks, List<Throwable> failures) {
        for (Executable check : checks) {
            try {
                check.execute();
            } catch (Throwable t) {
                failures.add(t);
            }
        }
    }

    private static void throwFirst(List<Throwable> failures) throws Exception {
        if (failures.isEmpty()) {
            return;
        }
        Throwable first = failures.get(0);
        failures.subList(1, failures.size()).forEach(first::addSuppressed);
        if (first instanceof Exception e) {
            throw e;
        }
        if (first instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(first);
    }

    private static @Nullable Path defaultLogsDirectory() {
        Path target = Path.of("target");
        return Files.isDirectory(target) ? target.resolve("baton-kit-logs") : null;
    }

    /**
     * Settings for a {@link ZooKeeperEnsembleExtension}: the ensemble's (delegated to a
     * {@link ZooKeeperEnsemble.Builder}, same rules) and the extension's own. Not thread-safe.
     */
    public static final class Builder {

        private final ZooKeeperEnsemble.Builder ensemble = ZooKeeperEnsemble.builder();
        private boolean resetAfterEach = true;
        private @Nullable Path logsDirectory = defaultLogsDirectory();

        private Builder() {
        }

        /**
         * See {@link ZooKeeperEnsemble.Builder#servers(int)}.
         *
         * @param count the number of servers
         * @return this builder
         */
        public Builder servers(int count) {
            ensemble.servers(count);
            return this;
        }

        /**
         * See {@link ZooKeeperEnsemble.Builder#proxies(boolean)}.
         *
         * @param enabled whether to proxy client and peer traffic
         * @return this builder
         */
        public Builder proxies(boolean enabled) {
            ensemble.proxies(enabled);
            return this;
        }

        /**
         * See {@link ZooKeeperEnsemble.Builder#clientProxies(boolean)}.
         *
         * @param enabled whether to proxy client traffic
         * @return this builder
         */
        public Builder clientProxies(boolean enabled) {
            ensemble.clientProxies(enabled);
            return this;
        }

        /**
         * See {@link ZooKeeperEnsemble.Builder#peerProxies(boolean)}.
         *
         * @param enabled whether to proxy peer traffic
         * @return this builder
         */
        public Builder peerProxies(boolean enabled) {
            ensemble.peerProxies(enabled);
            return this;
        }

        /**
         * Sets any other ensemble option.
         *
         * @param options called once, now, with the ensemble builder
         * @return this builder
         */
        public Builder ensemble(Consumer<ZooKeeperEnsemble.Builder> options) {
            options.accept(ensemble);
            return this;
        }

        /**
         * Whether a class-wide ensemble is healed, resumed and restarted after each test; default true.
         *
         * @param reset whether to reset
         * @return this builder
         */
        public Builder resetAfterEach(boolean reset) {
            this.resetAfterEach = reset;
            return this;
        }

        /**
         * Where to keep logs of failed tests; {@code null} to not keep them. Default
         * {@code target/baton-kit-logs} when {@code target} exists.
         *
         * @param directory the root directory, or null
         * @return this builder
         */
        public Builder logsOnFailure(@Nullable Path directory) {
            this.logsDirectory = directory;
            return this;
        }

        /**
         * Creates the extension.
         *
         * @return the extension
         */
        public ZooKeeperEnsembleExtension build() {
            return new ZooKeeperEnsembleExtension(ensemble, resetAfterEach, logsDirectory);
        }
    }
}
