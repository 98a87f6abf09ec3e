package dev.baton.bench;

import org.apache.zookeeper.KeeperException;

/**
 * One benchmark scenario: a loop of operations run through a {@link BenchClient}. Implementations are stateless
 * (everything a run needs is in its {@link RunContext}) and are listed in {@link Scenarios}.
 *
 * <p>The runner calls {@link #setUp}, {@link #run}, {@link #tearDown} once per turn (one library's share of a
 * round, up to {@link RunContext#ops()} operations), each time on a fresh, empty {@link RunContext#basePath()}.
 * Only {@link #run} is measured, both for time and for the server's request count; {@link #setUp} and
 * {@link #tearDown} prepare and clean up, usually through {@link RunContext#admin()}.
 */
interface Scenario {

    /** The name used on the command line and in the report, such as {@code "sync-create-delete"}. */
    String name();

    /** One line for the report: what the loop does and what one "op" is. */
    String description();

    /**
     * Tells whether the scenario can run on a library; the runner leaves out (no row in the report) the libraries
     * it cannot, such as the bare ZooKeeper client for a scenario built on a recipe.
     *
     * @param client an adapter, not necessarily open
     * @return true by default
     */
    default boolean supports(BenchClient client) {
        return true;
    }

    /**
     * Tells whether the scenario can run with {@code --tls}. One whose sessions go through a proxy that reads the
     * ZooKeeper protocol ({@link FailedWriteCounter}) cannot: over TLS the proxy would see only encrypted bytes.
     *
     * @return true by default
     */
    default boolean runsOverTls() {
        return true;
    }

    /**
     * Prepares a run: {@link RunContext#basePath()} exists and is empty when this is called. Not measured.
     *
     * @param client the adapter under test
     * @param run the run
     * @throws KeeperException from the server
     * @throws InterruptedException if interrupted
     */
    default void setUp(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
    }

    /**
     * Runs the measured loop: at most {@link RunContext#ops()} operations while {@link RunContext#more(int)} says
     * so, recording each operation's latency in {@link RunContext#latencies()}. Returns only when every
     * operation it started has completed.
     *
     * @param client the adapter under test
     * @param run the run
     * @throws KeeperException if an operation failed
     * @throws InterruptedException if interrupted
     */
    void run(BenchClient client, RunContext run) throws KeeperException, InterruptedException;

    /**
     * Cleans up after a run. Not measured. Everything under {@link RunContext#basePath()} is deleted afterwards
     * anyway.
     *
     * @param client the adapter under test
     * @param run the run
     * @throws KeeperException from the server
     * @throws InterruptedException if interrupted
     */
    default void tearDown(BenchClient client, RunContext run) throws KeeperException, InterruptedException {
    }
}
