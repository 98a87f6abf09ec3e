package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs {@code baton demo leader-latch} and {@code baton demo leader-selector} in-process, fast. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@Tag("slow")
class LeaderDemoTest {

    private static final String FAST = "20";

    /** A timestamped line: {@code "  1.25s  tag     message"}. */
    private static final Pattern LINE = Pattern.compile("^\\s*\\d+\\.\\d{2}s  (\\S+)\\s+(.*)$");
    private static final Pattern LEADS = Pattern.compile("^(client\\d+) leads \\(fencing token 0x([0-9a-f]+)\\)$");
    private static final Pattern CLOSES = Pattern.compile("^(client\\d+) \\(the (?:last )?leader\\) closes.*$");
    private static final Pattern HANDOFF = Pattern.compile(
            "^(client\\d+) → (client\\d+) in [\\d.]+ ms; fencing token 0x([0-9a-f]+) → 0x([0-9a-f]+); 1 leader \\("
                    + "(client\\d+)\\)$");
    private static final Pattern TURN = Pattern.compile(
            "^(#\\d) leads\\s+turn\\s+(\\d+), fencing token 0x([0-9a-f]+), 1 of 3 selectors lead$");
    private static final Pattern DONE = Pattern.compile("^(#\\d) done .*$");

    @Test
    void leaderLatchDemoHandsLeadershipDownTheQueueOneLeaderAtATime() {
        Cli.Result result = baton("demo", "leader-latch", "--speed", FAST);

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<String> leaders = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        List<String> handoffs = new ArrayList<>();
        String current = null; // the participant that leads now, per the output
        for (String[] line : timestamped(result)) {
            Matcher m;
            if (line[0].equals("leader") && (m = LEADS.matcher(line[1])).matches()) {
                assertThat(current).as("a second leader while %s leads:\n%s", current, result).isNull();
                current = m.group(1);
                leaders.add(current);
                tokens.add(Long.parseLong(m.group(2), 16));
            } else if (line[0].equals("close") && (m = CLOSES.matcher(line[1])).matches()) {
                assertThat(m.group(1)).as(result.toString()).isEqualTo(current);
                current = null;
            } else if (line[0].equals("handoff")) {
                m = HANDOFF.matcher(line[1]);
                assertThat(m.matches()).as(line[1]).isTrue();
                assertThat(m.group(2)).isEqualTo(current).isEqualTo(m.group(5));
                assertThat(Long.parseLong(m.group(4), 16)).isGreaterThan(Long.parseLong(m.group(3), 16));
                handoffs.add(m.group(1) + " → " + m.group(2));
            }
        }
        // client1 joined first, so it leads first; each close hands over to the next in the queue.
        List<String> expectedLeaders = new ArrayList<>();
        List<String> expectedHandoffs = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            expectedLeaders.add("client" + i);
            if (i > 1) {
                expectedHandoffs.add("client" + (i - 1) + " → client" + i);
            }
        }
        assertThat(leaders).as(result.toString()).containsExactlyElementsOf(expectedLeaders);
        assertThat(handoffs).as(result.toString()).containsExactlyElementsOf(expectedHandoffs);
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(result.out())
                .contains("_c_").contains("-latch-0000000000  client1  ← leader")
                .contains("-latch-0000000009  client10 watches latch-0000000008")
                .contains("queue: [client2] client3 client4")
                .contains("all 10 participants have led")
                .contains("0 latch nodes were left; /demo-leader-latch deleted")
                .doesNotContain("no longer leads");
        assertThat(result.err()).doesNotContain("Exception");
    }

    @Test
    void leaderSelectorDemoRotatesFairly() {
        Cli.Result result = baton("demo", "leader-selector", "--speed", FAST);

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<String> turns = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        String current = null;
        for (String[] line : timestamped(result)) {
            if (!line[0].equals("turn")) {
                continue;
            }
            Matcher leads = TURN.matcher(line[1]);
            Matcher done = DONE.matcher(line[1]);
            if (leads.matches()) {
                assertThat(current).as("a second leader while %s leads:\n%s", current, result).isNull();
                current = leads.group(1);
                turns.add(current);
                assertThat(Integer.parseInt(leads.group(2))).isEqualTo(turns.size());
                tokens.add(Long.parseLong(leads.group(3), 16));
            } else {
                assertThat(done.matches()).as(line[1]).isTrue();
                assertThat(done.group(1)).as(result.toString()).isEqualTo(current);
                current = null;
            }
        }
        assertThat(turns).as(result.toString()).hasSize(LeaderSelectorDemo.TURNS);
        for (int i = 0; i + 3 <= turns.size(); i++) {
            assertThat(new HashSet<>(turns.subList(i, i + 3))).as("turns %d..%d of %s", i + 1, i + 3, turns)
                    .containsExactlyInAnyOrder("#0", "#1", "#2");
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(result.out()).contains("all three queued, in this order: lock-0000000000 #")
                .contains("0 participants left; /demo-leader-selector deleted");
        assertThat(result.err()).doesNotContain("Exception");
    }

    @Test
    void leaderDemosOnAGivenServerLeaveNothingBehind() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
                BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(100))) {
            for (String demo : List.of("leader-latch", "leader-selector")) {
                Cli.Result result = baton("demo", demo, "--connect", zk.connectString(), "--speed", "50");
                assertThat(result.exitCode()).as(result.toString()).isZero();
            }
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(client.getChildren().forPath("/")).containsExactly("zookeeper");
        }
    }

    @Test
    void leaderLatchDemoRefusesAnExistingPath() throws Exception {
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper().start();
                BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(100))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            client.create().forPath(LeaderLatchDemo.LATCH_PATH);

            Cli.Result result = baton("demo", "leader-latch", "--connect", zk.connectString());

            assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
            assertThat(result.err()).contains(LeaderLatchDemo.LATCH_PATH + " already exists");
            assertThat(client.checkExists().forPath(LeaderLatchDemo.LATCH_PATH)).isNotNull();
        }
    }

    /** The timestamped lines of the output, each as {tag, message}. */
    private static List<String[]> timestamped(Cli.Result result) {
        List<String[]> lines = new ArrayList<>();
        for (String line : result.outLines()) {
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                lines.add(new String[] {m.group(1), m.group(2)});
            }
        }
        return lines;
    }
}
