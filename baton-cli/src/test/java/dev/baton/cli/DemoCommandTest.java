package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeper;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DemoCommandTest {

    /** Pauses of the show 20 times shorter: the whole demo takes a few seconds. */
    private static final String FAST = "20";

    @Test
    void clientDemoSurvivesAnOutageOfItsEmbeddedServer() {
        Cli.Result result = baton("demo", "client", "--speed", FAST);

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<String> lines = result.outLines();
        int connected = indexOf(lines, "state", "CONNECTED");
        int stopping = indexOf(lines, "server", "stopping the server");
        int suspended = indexOf(lines, "state", "SUSPENDED");
        int restarting = indexOf(lines, "server", "starting it again");
        int reconnected = indexOf(lines, "state", "RECONNECTED");
        assertThat(List.of(connected, stopping, suspended, restarting, reconnected))
                .as(result.toString()).allMatch(i -> i >= 0).isSorted();
        assertThat(lines.get(reconnected)).contains("same session");

        // Each change is printed, then its event; the last change comes after the reconnection.
        int dbSet = indexOf(lines, "set", "/demo/config/db");
        int dbEvent = indexOf(lines, "event", "NodeDataChanged /demo/config/db");
        int created = indexOf(lines, "event", "NodeCreated /demo/members/member-0000000002");
        int deleted = indexOf(lines, "event", "NodeDeleted /demo/members/member-0000000000");
        int cacheEvent = indexOf(lines, "event", "NodeDataChanged /demo/config/cache");
        int rootDeleted = indexOf(lines, "event", "NodeDeleted /demo");
        assertThat(List.of(connected, dbSet, dbEvent, created, deleted, suspended, reconnected, cacheEvent,
                rootDeleted)).as(result.toString()).allMatch(i -> i >= 0).isSorted();
        assertThat(indexOf(lines, "event", "NodeDeleted /demo/config/cache")).isBetween(cacheEvent, rootDeleted);

        // The tree printed after the outage still holds this session's ephemeral members.
        assertThat(result.out()).contains("member-0000000001  \"bob\"  ephemeral 0x")
                .contains("member-0000000002  \"carol\"  ephemeral 0x");
        assertThat(lines.get(lines.size() - 1)).matches("\\s*\\d+\\.\\d{2}s  done    in .*, embedded server closed");
        assertThat(result.out()).doesNotContain("LOST");
    }

    @Test
    void defaultDemoOnAGivenServerLeavesTheServerRunningAndClean() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start()) {
            Cli.Result result = baton("demo", "--connect", zk.connectString(), "--speed", "50");

            assertThat(result.exitCode()).as(result.toString()).isZero();
            List<String> lines = result.outLines();
            assertThat(lines.get(0)).startsWith("baton demo client:");
            assertThat(indexOf(lines, "state", "CONNECTED")).isPositive();
            assertThat(indexOf(lines, "event", "NodeDataChanged /demo/config/db")).isPositive();
            assertThat(indexOf(lines, "event", "NodeDeleted /demo")).isPositive();
            assertThat(result.out()).contains("not stopping a server")
                    .contains("(--connect): no outage in this run; ZooKeeper " + EmbeddedZooKeeper.zooKeeperVersion());
            assertThat(indexOf(lines, "state", "SUSPENDED")).isEqualTo(-1);
            assertThat(zk.isRunning()).isTrue();
            try (BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(100))) {
                client.start();
                assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
                assertThat(client.checkExists().forPath("/demo")).isNull();
            }
        }
    }

    @Test
    void demoRefusesToTouchAnExistingDemoTree() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
                BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(100))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().forPath("/demo");

            Cli.Result result = baton("demo", "client", "--connect", zk.connectString());

            assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
            assertThat(result.err()).contains("/demo already exists");
            assertThat(client.checkExists().forPath("/demo")).isNotNull();
        }
    }

    @Test
    void doubleBarrierDemoRunsTheHorseRace() {
        Cli.Result result = baton("demo", "double-barrier", "--speed", "50");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<String> lines = result.outLines();
        int off = indexOf(lines, "gate", "all 5 are in");
        int firstRound = indexOf(lines, "round", " 1  all 5 out of /demo-race/round-1");
        int tenthRound = indexOf(lines, "round", "10  all 5 out of /demo-race/round-10");
        int won = indexOf(lines, "race", "");
        for (int i = 0; i < lines.size(); i++) {
            won = lines.get(i).contains("wins after") ? i : won;
        }
        assertThat(List.of(off, firstRound, tenthRound, won)).as(result.toString()).allMatch(i -> i >= 0).isSorted();
        // Every horse ran round 1 before anyone saw it end.
        assertThat(lines.subList(off, firstRound).stream().filter(l -> l.matches(".*round\\s+1  \\w+ .*")))
                .as(result.toString()).hasSize(5);
    }

    @Test
    void unknownDemoFailsWithTheListOfDemos() {
        Cli.Result result = baton("demo", "nosuch");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("no demo named 'nosuch'").contains("client").contains("(the default)");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void listPrintsEveryDemo() {
        Cli.Result result = baton("demo", "--list");

        assertThat(result.exitCode()).isZero();
        assertThat(result.outLines()).hasSize(1 + Demos.ALL.size());
        Demos.ALL.forEach(d -> assertThat(result.out()).contains(d.name()).contains(d.description()));
    }

    @Test
    void speedMustBePositive() {
        Cli.Result result = baton("demo", "--speed", "0");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("--speed must be a positive number");
    }

    @Test
    void versionAndUsage() {
        Cli.Result version = baton("--version");
        assertThat(version.exitCode()).isZero();
        assertThat(version.out()).startsWith("baton ");

        Cli.Result bare = baton();
        assertThat(bare.exitCode()).isEqualTo(2);
        assertThat(bare.err()).contains("Usage: baton").contains("demo").contains("inspect");

        Cli.Result help = baton("help", "demo");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("Usage: baton demo").contains("--connect").contains("--speed");
    }

    /**
     * The index of the first line with this tag and text after its timestamp (the text not followed by more of
     * a word or path: "/demo" does not match "/demo/config"), or -1.
     */
    private static int indexOf(List<String> lines, String tag, String text) {
        Pattern line = Pattern.compile("^\\s*\\d+\\.\\d{2}s  " + Pattern.quote(tag) + "\\s+" + Pattern.quote(text)
                + "(?![\\w/-]).*$");
        for (int i = 0; i < lines.size(); i++) {
            if (line.matcher(lines.get(i)).matches()) {
                return i;
            }
        }
        return -1;
    }
}
