package dev.baton.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects random faults into a {@link ZooKeeperEnsemble} (or one {@link EmbeddedZooKeeper}) and its clients, one
 * at a time, each healed before the next, and records each injection and heal in a {@link History}
 * ({@code FAULT_INJECTED}/{@code FAULT_HEALED}, fault ids {@code f1}, {@code f2}, ...). The schedule (which
 * fault, which victim, for how long, the quiet time between faults) comes from a {@link Random} seeded by the
 * caller, so a seed replays the schedule; the effects of course depend on timing.
 *
 * <pre>{@code
 * RandomFaults faults = new RandomFaults(ensemble, targets, history, seed, List.of(FaultKind.values()),
 *         Duration.ofSeconds(4));
 * faults.run(Duration.ofMinutes(10));   // returns healed, every server running
 * faults.counts();                      // faults injected, by kind
 * }</pre>
 *
 * <p>Session expiry on demand ends a session on the servers at once, while its client is still connected and
 * learns it only when the server drops its connection. A real expiry only happens after the client went without
 * contact for the whole session timeout, by which time it has suspended itself. So for this fault the injector
 * records {@code DISCONNECTED} for the victim just before expiring it: the checkers then treat its belief as they
 * treat a paused or partitioned client's. Likewise it records {@code PAUSED} for a client it stops with SIGSTOP,
 * once the stop has landed (the client may act until then), and {@code RESUMED} before it sends SIGCONT.
 *
 * <p>Thread-safety: {@link #run} is meant for one thread; {@link #counts()} may be read from any thread.
 */
public final class RandomFaults {

    private static final Logger LOG = LoggerFactory.getLogger(RandomFaults.class);

    /** The kinds of faults a run draws from. */
    public enum FaultKind {
        /** SIGKILL a random server, restart it with its data later. */
        KILL,
        /** SIGKILL the current leader, restart it later. */
        KILL_LEADER,
        /** Partition one or two clients from every server (drop or black hole), shorter or longer than a session. */
        PARTITION,
        /** Cut a random server from its peers (it loses quorum, the majority carries on). */
        ISOLATE,
        /** Cut the link between two servers only (each keeps the third). */
        PARTITION_PEERS,
        /** Expire a random client's session on the servers. */
        EXPIRE,
        /** SIGSTOP a random server (a long GC pause), SIGCONT later. */
        PAUSE_SERVER,
        /** SIGSTOP a random client process (a long GC pause), sometimes past its session, SIGCONT later. */
        PAUSE_CLIENT,
        /** Kill a majority of servers, then restart them. */
        QUORUM,
        /**
         * Move every server to the other release line of {@link RandomFaults#upgradeTo(String)}, one at a time as
         * an operator would: stop it, start it on the new line with its data, wait until it serves and the quorum
         * is whole, let the clients settle for a session timeout, then the next; the leader last. The first such fault upgrades, the next rolls back to the
         * ensemble's first line, and so on.
         */
        ROLLING_UPGRADE,
        /**
         * Restart every server in turn on its own release, as an operator applying a configuration change would:
         * the same pace and order as {@link #ROLLING_UPGRADE} (each serving with a whole quorum, a session timeout
         * to settle, the leader last). Sessions move to other servers and survive.
         */
        ROLLING_RESTART,
        /**
         * Remove a random server from the ensemble by dynamic reconfiguration, then add it back, as an operator
         * replacing a machine would; clients that follow the ensemble's configuration move off it and back.
         * Needs an ensemble with reconfiguration on ({@link ZooKeeperEnsemble.Builder#reconfigEnabled(boolean)}).
         */
        RECONFIGURE;

        /**
         * Whether the kind needs servers with peers, each in a process of its own ({@link #ISOLATE},
         * {@link #PARTITION_PEERS}, {@link #PAUSE_SERVER}, the rolling ones, {@link #RECONFIGURE}): such faults
         * cannot reach one server embedded in this JVM, where the others that stop a server ({@link #KILL},
         * {@link #KILL_LEADER}, {@link #QUORUM}) stop and restart it.
         *
         * @return true if only a {@link ZooKeeperEnsemble} can take this kind of fault
         */
        public boolean needsEnsemble() {
            return this == ISOLATE || this == PARTITION_PEERS || this == PAUSE_SERVER || this == ROLLING_UPGRADE
                    || this == ROLLING_RESTART || this == RECONFIGURE;
        }

        /**
         * Whether the kind ends client sessions on purpose, or is drawn to last past a session at times:
         * {@link #EXPIRE}, {@link #PARTITION}, {@link #PAUSE_CLIENT} and {@link #QUORUM}. A run with none of these
         * should lose no session ({@link Checkers#noSessionLost()}): the other kinds only move clients to another
         * server.
         *
         * @return true if sessions may end by design
         */
        public boolean endsSessions() {
            return this == EXPIRE || this == PARTITION || this == PAUSE_CLIENT || this == QUORUM;
        }

        /**
         * Parses a kind leniently: {@code kill-leader}, {@code KILL_LEADER} and {@code killLeader} are the same.
         *
         * @param text the name
         * @return the kind
         * @throws IllegalArgumentException naming the known kinds if there is no such kind
         */
        public static FaultKind parse(String text) {
            Objects.requireNonNull(text, "text");
            String norm = text.strip().replaceAll("([a-z])([A-Z])", "$1_$2").replace('-', '_')
                    .toUpperCase(Locale.ROOT);
            try {
                return valueOf(norm);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault kind '" + text + "'; known: "
                        + List.of(values()), e);
            }
        }
    }

    /** A client the faults reach: its private link to the servers, its session and, if it has one, its process. */
    public interface Target {
        /**
         * The client's id in the history.
         *
         * @return e.g. {@code "c1"}
         */
        String name();

        /**
         * The client's own proxies to the servers (partitions cut these).
         *
         * @return the link the client connects through
         */
        ClientLink link();

        /**
         * The client's current session, to expire it.
         *
         * @return the session id and password, or empty between sessions
         * @throws InterruptedException if interrupted while asking the client
         */
        Optional<Session> session() throws InterruptedException;

        /**
         * The client's own process, to pause it; empty if it runs in this JVM (then it is never paused).
         *
         * @return the driver process
         */
        default Optional<DriverProcess> process() {
            return Optional.empty();
        }
    }

    /**
     * A session to expire.
     *
     * @param id the session id
     * @param password the session password
     */
    // Carries ZooKeeper's session password as ZooKeeper hands it out; never compared or hashed.
    @SuppressWarnings("ArrayRecordComponent")
    public record Session(long id, byte[] password) {
        /**
         * Validates.
         *
         * @param id the session id, not 0
         * @param password the session password
         * @throws IllegalArgumentException if {@code id} is 0
         */
        public Session {
            Objects.requireNonNull(password, "password");
            if (id == 0) {
                throw new IllegalArgumentException("no session: id 0");
            }
        }
    }

    /** The servers: exactly one of these two is set. */
    private final @Nullable ZooKeeperEnsemble ensemble;
    private final @Nullable EmbeddedZooKeeper embedded;
    private final List<Target> targets;
    private final History history;
    private final Random random;
    private final List<FaultKind> mix;
    private final Duration sessionTimeout;
    private final Map<FaultKind, Integer> counts = Collections.synchronizedMap(new EnumMap<>(FaultKind.class));
    private volatile Consumer<String> announcer = line -> { };
    private int faults;
    /** The operator's faults; null with one embedded server. */
    private final @Nullable EnsembleMaintenance maintenance;

    /**
     * Creates an injector; nothing happens until {@link #run}.
     *
     * @param ensemble the servers
     * @param targets the clients, each with its own link
     * @param history where faults (and the victims' out-of-touch spells) are recorded
     * @param seed the seed of the schedule
     * @param mix the kinds to draw from; {@link FaultKind#PAUSE_CLIENT} only reaches targets with a process
     * @param sessionTimeout the clients' session timeout (partitions and pauses are drawn around it)
     * @throws IllegalArgumentException if {@code mix} or {@code targets} is empty, or {@code mix} holds
     *     {@link FaultKind#RECONFIGURE} and the ensemble has reconfiguration off
     */
    public RandomFaults(ZooKeeperEnsemble ensemble, List<? extends Target> targets, History history, long seed,
            List<FaultKind> mix, Duration sessionTimeout) {
        this(Objects.requireNonNull(ensemble, "ensemble"), null, targets, history, seed, mix, sessionTimeout);
        if (this.mix.contains(FaultKind.RECONFIGURE) && !ensemble.reconfigEnabled()) {
            throw new IllegalArgumentException("fault kind RECONFIGURE needs an ensemble with reconfiguration on "
                    + "(reconfigEnabled(true))");
        }
    }

    /**
     * Creates an injector for one server embedded in this JVM (each client's link goes through
     * {@link EmbeddedZooKeeper#newClientLink()}); nothing happens until {@link #run}. The kinds that stop a server
     * stop and restart this one; kinds that {@linkplain FaultKind#needsEnsemble() need an ensemble} are refused.
     *
     * @param server the server
     * @param targets the clients, each with its own link
     * @param history where faults (and the victims' out-of-touch spells) are recorded
     * @param seed the seed of the schedule
     * @param mix the kinds to draw from; {@link FaultKind#PAUSE_CLIENT} only reaches targets with a process
     * @param sessionTimeout the clients' session timeout (partitions and pauses are drawn around it)
     * @throws IllegalArgumentException if {@code mix} or {@code targets} is empty, or {@code mix} holds a kind
     *     that needs an ensemble
     */
    public RandomFaults(EmbeddedZooKeeper server, List<? extends Target> targets, History history, long seed,
            List<FaultKind> mix, Duration sessionTimeout) {
        this(null, Objects.requireNonNull(server, "server"), targets, history, seed, mix, sessionTimeout);
        List<FaultKind> refused = this.mix.stream().filter(FaultKind::needsEnsemble).distinct().toList();
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException("fault kinds " + refused + " need an ensemble of separate-process "
                    + "servers, not one embedded server");
        }
    }

    private RandomFaults(@Nullable ZooKeeperEnsemble ensemble, @Nullable EmbeddedZooKeeper embedded,
            List<? extends Target> targets,
            History history, long seed, List<FaultKind> mix, Duration sessionTimeout) {
        this.ensemble = ensemble;
        this.embedded = embedded;
        this.targets = List.copyOf(targets);
        this.history = Objects.requireNonNull(history, "history");
        this.random = new Random(seed);
        this.mix = List.copyOf(mix);
        this.sessionTimeout = Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        if (this.mix.isEmpty()) {
            throw new IllegalArgumentException("mix names no fault kind");
        }
        if (this.targets.isEmpty()) {
            throw new IllegalArgumentException("targets must not be empty");
        }
        this.maintenance = ensemble == null ? null : new EnsembleMaintenance(ensemble, sessionTimeout,
                new EnsembleMaintenance.Steps() {
                    @Override
                    public void injected(String id, FaultKind kind, String description) {
                        RandomFaults.this.injected(id, kind, description);
                    }

                    @Override
                    public void step(String id, String description) {
                        history.note("fault " + id + ": " + description);
                        announcer.accept("fault " + id + " step: " + description);
                    }

                    @Override
                    public void healed(String id, String description) {
                        RandomFaults.this.healed(id, description);
                    }
                });
    }

    /**
     * Sets the release line {@link FaultKind#ROLLING_UPGRADE} moves the ensemble to from the one it runs now (its
     * every server must run the same); needed when the mix holds that kind. Call before {@link #run}.
     *
     * @param version a release line such as {@code 3.9}, or its full version such as {@code 3.9.5}, whose module
     *     is on the class path (see {@link ZooKeeperEnsemble#restart(int, String)})
     * @return this injector
     * @throws IllegalArgumentException if there is no such release on the class path, or the ensemble already runs
     *     it
     * @throws IllegalStateException if the servers are one embedded server, or run different releases now
     */
    public RandomFaults upgradeTo(String version) {
        Objects.requireNonNull(version, "version");
        if (maintenance == null) {
            throw new IllegalStateException("a rolling upgrade needs an ensemble of separate-process servers, not "
                    + "one embedded server");
        }
        maintenance.upgradeTo(version);
        return this;
    }

    /**
     * Sets where a line per injection and heal goes as it happens (besides the log), e.g. a console.
     *
     * @param announcer called on the injecting thread
     */
    public void announceTo(Consumer<String> announcer) {
        this.announcer = Objects.requireNonNull(announcer, "announcer");
    }

    /**
     * How many faults were injected.
     *
     * @return the count so far
     */
    public int faults() {
        return faults;
    }

    /**
     * How many faults of each kind were injected.
     *
     * @return a snapshot, kinds in declaration order, only kinds injected at least once
     */
    public Map<FaultKind, Integer> counts() {
        synchronized (counts) {
            return Collections.unmodifiableMap(new EnumMap<>(counts));
        }
    }

    /**
     * Injects faults until {@code duration} has passed (the last one may run over by its own length), each healed
     * before the next; returns with everything healed and every server running.
     *
     * @param duration how long to go on
     * @throws InterruptedException if interrupted (faults are then healed before it returns)
     */
    public void run(Duration duration) throws InterruptedException {
        if (mix.contains(FaultKind.ROLLING_UPGRADE) && (maintenance == null || !maintenance.canUpgrade())) {
            throw new IllegalStateException("the mix holds ROLLING_UPGRADE but no upgradeTo(version) was set");
        }
        long end = System.nanoTime() + duration.toNanos();
        try {
            while (System.nanoTime() < end) {
                FaultKind kind = mix.get(random.nextInt(mix.size()));
                if (kind == FaultKind.QUORUM && mix.size() > 1) {
                    kind = mix.get(random.nextInt(mix.size())); // half as likely: it stops all work for seconds
                }
                inject(kind);
                Thread.sleep(300 + random.nextInt(1_700)); // quiet time: let the clients work
            }
        } finally {
            healEverything();
        }
    }

    private void inject(FaultKind kind) throws InterruptedException {
        String id = "f" + (faults + 1);
        long holdMs = 500L + random.nextInt(3_500);
        if (embedded != null && (kind == FaultKind.KILL || kind == FaultKind.KILL_LEADER
                || kind == FaultKind.QUORUM)) {
            injected(id, kind, "stop the embedded server");
            embedded.stop();
            Thread.sleep(holdMs);
            embedded.start();
            healed(id, "restarted the embedded server");
            return;
        }
        switch (kind) {
            case KILL -> {
                int server = randomServer();
                injected(id, kind, "SIGKILL server " + server);
                ensemble().kill(server);
                Thread.sleep(holdMs);
                ensemble().start(server);
                healed(id, "restarted server " + server);
            }
            case KILL_LEADER -> {
                int leader = ensemble().awaitLeader(Duration.ofSeconds(60));
                injected(id, kind, "SIGKILL leader server " + leader);
                ensemble().kill(leader);
                Thread.sleep(holdMs);
                ensemble().start(leader);
                healed(id, "restarted server " + leader);
            }
            case PARTITION -> {
                // Sometimes longer than a session, so that sessions expire while the client is cut off.
                long ms = 500L + random.nextInt((int) (sessionTimeout.toMillis() * 2));
                TcpProxy.Mode mode = random.nextBoolean() ? TcpProxy.Mode.DROP : TcpProxy.Mode.BLACKHOLE;
                List<Target> victims = randomTargets(1 + random.nextInt(2));
                injected(id, kind, "partition clients " + names(victims) + " from all servers (" + mode + ") for "
                        + ms + " ms");
                victims.forEach(t -> t.link().partition(mode));
                // As with an expiry: from here the servers hear nothing of the victims, and a partition longer
                // than a session ends their sessions there, while a victim learns of it only by its own timeouts
                // (in a black hole) or not before the heal. Mark them out of touch until the heal; their own
                // SUSPENDED, LOST and RECONNECTED follow, and a belief still held at a RECONNECTED after it counts.
                victims.forEach(t -> history.recorder(t.name()).cutOff(id, "cut off from every server by fault "
                        + id + "; the client is not told yet"));
                Thread.sleep(ms);
                // Recorded first: a victim's RECONNECTED racing the heal's record would not count.
                healed(id, "healed clients " + names(victims));
                victims.forEach(t -> t.link().heal());
            }
            case ISOLATE -> {
                int server = randomServer();
                TcpProxy.Mode mode = random.nextBoolean() ? TcpProxy.Mode.DROP : TcpProxy.Mode.BLACKHOLE;
                injected(id, kind, "isolate server " + server + " from its peers (" + mode + ")");
                ensemble().isolate(server, mode);
                Thread.sleep(holdMs);
                ensemble().healPeers();
                healed(id, "healed peers of server " + server);
            }
            case PARTITION_PEERS -> {
                List<Integer> ids = new ArrayList<>(ensemble().serverIds());
                Collections.shuffle(ids, random);
                int a = ids.get(0);
                int b = ids.get(1);
                TcpProxy.Mode mode = random.nextBoolean() ? TcpProxy.Mode.DROP : TcpProxy.Mode.BLACKHOLE;
                injected(id, kind, "cut servers " + a + " and " + b + " from each other (" + mode + ")");
                ensemble().partitionPeers(a, b, mode);
                Thread.sleep(holdMs);
                ensemble().healPeers();
                healed(id, "healed the link of servers " + a + " and " + b);
            }
            case EXPIRE -> {
                Target victim = targets.get(random.nextInt(targets.size()));
                Optional<Session> session = victim.session();
                if (session.isEmpty()) {
                    // Between sessions (its last one expired, the new one is not connected yet): nothing to end.
                    history.note("fault " + id + " skipped: " + victim.name() + " has no session to expire");
                    return;
                }
                injected(id, kind, "expire session 0x" + Long.toHexString(session.get().id()) + " of "
                        + victim.name());
                // From here the session is ending on the servers while the client, not told yet, still believes
                // what it believed: the window a client cannot know about, as in a pause. Mark it out of touch
                // until the expiry has landed (a RECONNECTED meanwhile is of the session being ended); its own
                // SUSPENDED/LOST/RECONNECTED follow, and a belief it still holds at a RECONNECTED after it counts.
                history.recorder(victim.name()).cutOff(id, "session expired on the servers by fault " + id
                        + "; the client is not told yet");
                try {
                    if (embedded != null) {
                        embedded.expireSession(session.get().id(), session.get().password());
                    } else {
                        ensemble().expireSession(session.get().id(), session.get().password());
                    }
                } catch (IllegalStateException e) {
                    LOG.warn("session expiry of {} did not complete: {}", victim.name(), e.toString());
                }
                healed(id, "expired");
            }
            case PAUSE_SERVER -> {
                int server = randomServer();
                injected(id, kind, "SIGSTOP server " + server);
                ensemble().pause(server);
                Thread.sleep(holdMs);
                ensemble().resume(server);
                healed(id, "SIGCONT server " + server);
            }
            case PAUSE_CLIENT -> {
                List<Target> pausable = targets.stream().filter(t -> t.process().isPresent()).toList();
                if (pausable.isEmpty()) {
                    history.note("fault " + id + " skipped: no client runs in a process of its own");
                    return;
                }
                Target victim = pausable.get(random.nextInt(pausable.size()));
                DriverProcess process = victim.process().orElseThrow();
                // Half the time past the session: the session ends while the process cannot know.
                long ms = 300L + random.nextInt((int) (sessionTimeout.toMillis() * 2));
                injected(id, kind, "SIGSTOP client " + victim.name() + " for " + ms + " ms");
                History.Recorder recorder = history.recorder(victim.name());
                // PAUSED once kill -STOP has returned, RESUMED before kill -CONT is sent: on a busy machine the
                // kill command takes its time, and the client acts (and stamps its events) until it lands.
                process.pause();
                recorder.paused();
                try {
                    Thread.sleep(ms);
                } finally {
                    recorder.resumed();
                    process.resume();
                }
                healed(id, "SIGCONT client " + victim.name());
            }
            case QUORUM -> {
                injected(id, kind, "lose quorum");
                Set<Integer> killed = ensemble().loseQuorum();
                history.note("killed servers " + killed);
                Thread.sleep(holdMs);
                int leader = ensemble().regainQuorum();
                healed(id, "regained quorum, leader " + leader);
            }
            case ROLLING_UPGRADE -> maintenance().rollingUpgrade(id);
            case ROLLING_RESTART -> maintenance().rollingRestart(id);
            case RECONFIGURE -> maintenance().reconfigure(id, randomServer(), holdMs);
            default -> throw new IllegalStateException("unexpected fault kind " + kind);
        }
    }

    /** Undoes whatever an interrupted fault left: servers stopped or paused, links cut, clients paused. */
    private void healEverything() {
        for (Target t : targets) {
            t.process().filter(DriverProcess::isPaused).ifPresent(p -> {
                history.recorder(t.name()).resumed();
                p.resume();
            });
            t.link().heal();
        }
        if (embedded != null) {
            if (!embedded.isRunning()) {
                embedded.start();
            }
            return;
        }
        ensemble().healAll();
        try {
            maintenance().addBackRemoved();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("could not add back the servers a reconfiguration removed: {}", e.toString());
        }
        for (int server : ensemble().serverIds()) {
            if (ensemble().isPaused(server)) {
                ensemble().resume(server);
            }
            if (!ensemble().isRunning(server)) {
                ensemble().start(server);
            }
        }
    }

    private void injected(String id, FaultKind kind, String description) {
        faults++;
        counts.merge(kind, 1, Integer::sum);
        LOG.info("fault {}: {}", id, description);
        history.faultInjected(id, description);
        announcer.accept("fault " + id + " " + kind.name().toLowerCase(Locale.ROOT).replace('_', '-') + ": "
                + description);
    }

    private void healed(String id, String description) {
        LOG.info("fault {} healed: {}", id, description);
        history.faultHealed(id, description);
        announcer.accept("fault " + id + " healed: " + description);
    }

    /** The ensemble; the kinds that use it are refused at construction when the server is embedded. */
    private ZooKeeperEnsemble ensemble() {
        ZooKeeperEnsemble e = ensemble;
        if (e == null) {
            throw new IllegalStateException("this fault needs an ensemble, not one embedded server");
        }
        return e;
    }

    private EnsembleMaintenance maintenance() {
        EnsembleMaintenance m = maintenance;
        if (m == null) {
            throw new IllegalStateException("this fault needs an ensemble, not one embedded server");
        }
        return m;
    }

    private int randomServer() {
        List<Integer> ids = new ArrayList<>(ensemble().serverIds());
        return ids.get(random.nextInt(ids.size()));
    }

    private List<Target> randomTargets(int n) {
        List<Target> all = new ArrayList<>(targets);
        Collections.shuffle(all, random);
        return all.subList(0, Math.min(n, all.size()));
    }

    private static String names(List<Target> victims) {
        return victims.stream().map(Target::name).toList().toString();
    }
}
