package dev.baton.cli;

import dev.baton.BatonClient;
import dev.baton.recipes.shared.SharedCount;
import dev.baton.recipes.shared.SharedCountListener;
import dev.baton.recipes.shared.SharedCountReader;
import dev.baton.recipes.shared.VersionedValue;
import dev.baton.state.ConnectionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code baton demo shared-count}: three services share a {@link SharedCount}, "how many workers to run". The
 * first seeds it; each hears every change through its listener; two change it at the same moment with
 * {@code trySetCount} from the same version, so exactly one wins and the other reads again and retries.
 */
final class SharedCountDemo implements Demo {

    static final String PATH = "/demo-shared-count";
    private static final String[] SERVICES = {"alice", "bob", "carol"};
    private static final Duration STEP = Duration.ofMillis(600);

    /** A listener's call: who heard which value. */
    private record Heard(String who, int value) {
    }

    @Override
    public String name() {
        return "shared-count";
    }

    @Override
    public List<String> aliases() {
        return List.of("SharedCount", "count", "shared-counter");
    }

    @Override
    public String description() {
        return "three services share a count, hear each change, and race to change it: one wins, one retries";
    }

    @Override
    public void run(DemoContext ctx) throws Exception {
        BatonClient viewer = ctx.connect();
        ctx.claim(viewer, PATH);
        Recorder<Heard> heard = new Recorder<>();
        List<SharedCount> counts = new ArrayList<>();
        for (String who : SERVICES) {
            SharedCount count = ctx.closeOnExit(new SharedCount(ctx.connect(), PATH, 3));
            count.addListener(new SharedCountListener() {
                @Override
                public void countHasChanged(SharedCountReader reader, int newCount) {
                    ctx.log("hears", "%s hears: %d", who, newCount);
                    heard.record(new Heard(who, newCount));
                }

                @Override
                public void stateChanged(BatonClient client, ConnectionState newState) {
                    ctx.log("state", "%s: %s", who, newState);
                }
            });
            count.start();
            ctx.log("start", "%s starts its SharedCount on %s (seed 3): it reads %d", who, PATH, count.getCount());
            counts.add(count);
        }
        ctx.log("data", "%s holds %s: a 4-byte big-endian int", PATH,
                DataFormat.describe(viewer.getData().forPath(PATH)));
        ctx.pause(STEP);

        int mark = heard.mark();
        ctx.log("set", "alice sets the count to 5");
        counts.get(0).setCount(5);
        awaitEveryone(heard, mark, 5);
        ctx.pause(STEP);

        SharedCount bob = counts.get(1);
        SharedCount carol = counts.get(2);
        VersionedValue<Integer> bobSaw = bob.getVersionedValue();
        VersionedValue<Integer> carolSaw = carol.getVersionedValue();
        ctx.log("race", "bob and carol both read %d (version %d): bob wants +2, carol wants +1", bobSaw.value(),
                bobSaw.version());
        mark = heard.mark();
        boolean bobWon = bob.trySetCount(bobSaw, bobSaw.value() + 2);
        ctx.log("try", "bob: trySetCount(version %d, %d) -> %s", bobSaw.version(), bobSaw.value() + 2, bobWon);
        boolean carolWon = carol.trySetCount(carolSaw, carolSaw.value() + 1);
        ctx.log("try", "carol: trySetCount(version %d, %d) -> %s%s", carolSaw.version(), carolSaw.value() + 1,
                carolWon, carolWon ? "" : " (the version moved: someone changed it first)");
        if (!bobWon || carolWon) {
            throw new DemoException("two writers from one version: bob " + bobWon + ", carol " + carolWon);
        }
        awaitEveryone(heard, mark, 7);
        int tries = 1;
        while (true) {
            VersionedValue<Integer> fresh = carol.getVersionedValue();
            tries++;
            if (carol.trySetCount(fresh, fresh.value() + 1)) {
                ctx.log("try", "carol reads %d (version %d) again and retries: trySetCount -> true after %d tries",
                        fresh.value(), fresh.version(), tries);
                break;
            }
        }
        awaitEveryone(heard, mark, 8);
        ctx.log("count", "everyone agrees on %d: 5 + 2 (bob) + 1 (carol), no update lost", counts.get(0).getCount());
    }

    private static void awaitEveryone(Recorder<Heard> heard, int mark, int value) throws Exception {
        for (String who : SERVICES) {
            heard.await(mark, h -> h.who().equals(who) && h.value() == value, DemoContext.AWAIT_TIMEOUT,
                    who + " to hear " + value);
        }
    }
}
