package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.baton.BatonClient;
import dev.baton.recipes.locks.Hold;
import dev.baton.recipes.locks.InterProcessReadWriteLock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * {@code baton demo read-write-lock}: a catalog guarded by an {@link InterProcessReadWriteLock}. Two readers hold
 * the read lock at once; a writer queues and waits for both; a reader that comes after the writer waits behind
 * it (readers never overtake a waiting writer); the writer writes alone, then downgrades (takes the read lock
 * while holding the write lock, then lets the write lock go), and the waiting reader reads beside it.
 */
final class ReadWriteLockDemo implements Demo {

    static final String PATH = "/demo-read-write-lock";
    private static final Duration STEP = Duration.ofMillis(600);

    @Override
    public String name() {
        return "read-write-lock";
    }

    @Override
    public List<String> aliases() {
        return List.of("rwlock", "InterProcessReadWriteLock");
    }

    @Override
    public String description() {
        return "readers share a read lock, a writer waits for them and writes alone, then downgrades";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        InterProcessReadWriteLock alice = lock(ctx, "alice");
        InterProcessReadWriteLock bob = lock(ctx, "bob");
        InterProcessReadWriteLock carol = lock(ctx, "carol");
        InterProcessReadWriteLock dave = lock(ctx, "dave");
        BatonClient viewer = ctx.connect();
        ctx.claim(viewer, PATH);
        Recorder<WatchedEvent> nodes = TreeWatch.on(ctx, viewer, PATH, e -> { });
        AtomicInteger version = new AtomicInteger(1);
        AtomicInteger readers = new AtomicInteger();
        ctx.log("rwlock", "a catalog guarded by %s: readers share the read lock, a writer holds the write lock "
                + "alone; each participant has its own session", PATH);

        Hold aliceHold = read(ctx, alice, "alice", version, readers);
        Hold bobHold = read(ctx, bob, "bob", version, readers);
        ctx.pause(STEP);

        int mark = nodes.mark();
        CountDownLatch carolRead = new CountDownLatch(1);
        CompletableFuture<Void> writer = DemoContext.background("dave", () -> {
            ctx.log("wait", "dave wants the write lock: he waits for both readers");
            dave.writeLock().acquire();
            try {
                if (readers.get() != 0) {
                    throw new DemoException("dave got the write lock while " + readers.get() + " readers held it");
                }
                ctx.log("write", "dave holds the write lock (fencing token %d) and writes catalog v%d",
                        dave.writeLock().fencingToken().getAsLong(), version.incrementAndGet());
                ctx.pause(STEP);
                dave.readLock().acquire();
                ctx.log("read", "dave also takes the read lock: granted at once, his read node takes his write "
                        + "node's place in the queue (a downgrade)");
            } finally {
                ctx.log("release", "dave releases the write lock and stays a reader: the readers behind him go in");
                dave.writeLock().release();
            }
            try {
                if (!carolRead.await(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new DemoException("carol did not get the read lock beside dave");
                }
            } finally {
                dave.readLock().release();
            }
        });
        nodes.await(mark, TreeWatch.is(EventType.NodeCreated, "__WRIT__"), DemoContext.AWAIT_TIMEOUT,
                "dave's write node");
        ctx.pause(STEP);

        mark = nodes.mark();
        ctx.log("wait", "carol wants the read lock: a writer is queued before her, so she waits behind him");
        CompletableFuture<Hold> carolHold = carol.readLock().acquireAsync().thenApply(hold -> {
            readers.incrementAndGet();
            ctx.log("read", "carol holds the read lock beside dave and reads catalog v%d", version.get());
            carolRead.countDown();
            return hold;
        });
        nodes.await(mark, TreeWatch.is(EventType.NodeCreated, "__READ__"), DemoContext.AWAIT_TIMEOUT,
                "carol's read node");
        ctx.log("queue", "what `baton inspect %s` shows now:", PATH);
        ctx.inspect(viewer, PATH, InspectOptions.NONE);
        ctx.pause(STEP);

        release(ctx, aliceHold, "alice", readers, "dave still waits for bob");
        ctx.pause(STEP);
        if (carolHold.isDone()) {
            throw new DemoException("carol overtook the waiting writer");
        }
        release(ctx, bobHold, "bob", readers, "the last reader is out");
        Hold carolHolds = carolHold.get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        ctx.log("queue", "what `baton inspect %s` shows now:", PATH);
        ctx.inspect(viewer, PATH, InspectOptions.NONE);
        writer.get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        ctx.pause(STEP);
        release(ctx, carolHolds, "carol", readers, "the lock is free");
        ctx.log("rwlock", "catalog v%d: the writer wrote alone, the readers read together, no reader overtook it",
                version.get());
    }

    private static InterProcessReadWriteLock lock(DemoContext ctx, String id) throws Exception {
        return new InterProcessReadWriteLock(ctx.connect(), PATH, id.getBytes(UTF_8));
    }

    private static Hold read(DemoContext ctx, InterProcessReadWriteLock lock, String id, AtomicInteger version,
            AtomicInteger readers) throws Exception {
        Hold hold = lock.readLock().acquireAsync().get(DemoContext.AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        int now = readers.incrementAndGet();
        ctx.log("read", "%s holds the read lock and reads catalog v%d (%d reader%s at once)", id, version.get(), now,
                now == 1 ? "" : "s");
        return hold;
    }

    private static void release(DemoContext ctx, Hold hold, String id, AtomicInteger readers, String then) {
        readers.decrementAndGet();
        ctx.log("release", "%s releases the read lock: %s", id, then);
        hold.release();
    }
}
