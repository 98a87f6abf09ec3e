package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The command line and the statistics, without a server. */
class BenchOptionsTest {

    @Test
    void defaults() {
        BenchOptions o = BenchOptions.defaults();
        assertThat(o.ops()).isEqualTo(3000);
        assertThat(o.warmupOps()).isEqualTo(3000);
        assertThat(o.rounds()).isEqualTo(3);
        assertThat(o.slice()).isEqualTo(500);
        assertThat(o.inFlight()).isEqualTo(64);
        assertThat(o.connect()).isNull();
        assertThat(o.latencyNanos()).isZero();
        assertThat(o.out()).isNull();
        assertThat(o.scenarios()).isEmpty();
        assertThat(o.tls()).isFalse();
    }

    @Test
    void tlsIsAFlagForOwnServersOnly() {
        assertThat(BenchOptions.parse("--tls", "--scenarios", "get-data").tls()).isTrue();
        assertThat(BenchOptions.parse("--tls", "--latency", "250").latencyNanos()).isEqualTo(250_000);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> BenchOptions.parse("--tls", "--connect", "127.0.0.1:2281"))
                .withMessageContaining("--tls and --connect");
        assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("--ensemble", "3", "--tls"))
                .withMessageContaining("--tls and --ensemble").withMessageContaining("embedded server only");
        assertThat(BenchOptions.USAGE).contains("--tls");
    }

    @Test
    void tlsRefusesNamedScenariosThatReadTheProtocolAndLeavesThemOutOfAll() {
        assertThat(Scenarios.select(List.of("get-data", "mutex-uncontended"), true)).extracting(Scenario::name)
                .containsExactly("get-data", "mutex-uncontended");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Scenarios.select(List.of("get-data", "double-barrier", "atomic-increment"), true))
                .withMessageContaining("--tls cannot run double-barrier, atomic-increment")
                .withMessageNotContaining("get-data");
        List<Scenario> all = Scenarios.select(List.of(), true);
        assertThat(all).extracting(Scenario::name).doesNotContain("double-barrier", "atomic-increment")
                .contains("get-data", "mutex-uncontended", "mutex-8", "latch-failover", "queue");
        assertThat(all).hasSize(Scenarios.ALL.size() - 2);
        assertThat(Scenarios.withoutTls(Scenarios.ALL)).containsExactly("double-barrier", "atomic-increment");
        assertThat(Scenarios.select(List.of("double-barrier"), false)).hasSize(1);
    }

    @Test
    void flagsWithSeparateAndInlineValues() {
        BenchOptions o = BenchOptions.parse("--ops=5000", "--rounds", "5", "--scenarios", "get-data,async-create",
                "--libraries=baton,zookeeper", "--duration", "2.5", "--out", "x/bench.md", "--connect",
                "127.0.0.1:2181", "--latency", "250");
        assertThat(o.ops()).isEqualTo(5000);
        assertThat(o.latencyNanos()).isEqualTo(250_000);
        assertThat(o.warmupOps()).isEqualTo(5000);
        assertThat(o.rounds()).isEqualTo(5);
        assertThat(o.scenarios()).containsExactly("get-data", "async-create");
        assertThat(o.libraries()).containsExactly("baton", "zookeeper");
        assertThat(o.maxRunNanos()).isEqualTo(2_500_000_000L);
        assertThat(o.out()).isEqualTo(Path.of("x/bench.md"));
        assertThat(o.connect()).isEqualTo("127.0.0.1:2181");
        assertThat(o.ensemble()).isZero();
        assertThat(BenchOptions.parse("--ensemble=3").ensemble()).isEqualTo(3);
        assertThat(Scenarios.select(o.scenarios())).extracting(Scenario::name)
                .containsExactly("get-data", "async-create");
        assertThat(Libraries.create(o.libraries())).extracting(BenchClient::name)
                .containsExactly("Baton", "ZooKeeper");
    }

    @Test
    void chartGoesBesideTheReportUnlessNamed() {
        assertThat(BenchOptions.defaults().chartFile()).isNull();
        assertThat(BenchOptions.parse("--out", "x/bench.md").chartFile()).isEqualTo(Path.of("x/bench.svg"));
        assertThat(BenchOptions.parse("--out", "report").chartFile()).isEqualTo(Path.of("report.svg"));
        assertThat(BenchOptions.parse("--out", "x/bench.md", "--chart", "docs/bench.svg").chartFile())
                .isEqualTo(Path.of("docs/bench.svg"));
        assertThat(BenchOptions.parse("--chart=c.svg").chartFile()).isEqualTo(Path.of("c.svg"));
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("--ops", "0"))
                .withMessageContaining("--ops");
        assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("--ops"))
                .withMessageContaining("--ops needs a value");
        assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("--latency", "-1"))
                .withMessageContaining("--latency");
        assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("--ensemble", "2"))
                .withMessageContaining("--ensemble").withMessageContaining("2");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> BenchOptions.parse("--ensemble", "3", "--connect", "127.0.0.1:2181"))
                .withMessageContaining("--ensemble and --connect");
        assertThatIllegalArgumentException().isThrownBy(() -> BenchOptions.parse("--bogus"))
                .withMessageContaining("--bogus");
        assertThatIllegalArgumentException().isThrownBy(() -> Scenarios.select(List.of("nope")))
                .withMessageContaining("nope").withMessageContaining("sync-create-delete");
        assertThatIllegalArgumentException().isThrownBy(() -> Libraries.create(List.of("etcd")))
                .withMessageContaining("etcd");
    }

    @Test
    void nearestRankPercentiles() {
        long[] sorted = new long[100];
        for (int i = 0; i < 100; i++) {
            sorted[i] = i + 1;
        }
        assertThat(Latencies.percentile(sorted, 50)).isEqualTo(50);
        assertThat(Latencies.percentile(sorted, 99)).isEqualTo(99);
        assertThat(Latencies.percentile(new long[] {7}, 99)).isEqualTo(7);
        assertThat(Latencies.percentile(new long[0], 50)).isZero();
    }

    @Test
    void medianRoundIsOneRealRun() {
        RunResult slow = new RunResult("Baton", 100, 2_000_000, 10, 20, 200, List.of());
        RunResult mid = new RunResult("Baton", 100, 1_000_000, 11, 21, 201, List.of());
        RunResult fast = new RunResult("Baton", 100, 500_000, 12, 22, 202, List.of());
        ScenarioResult r = new ScenarioResult("s", "d", Map.of("Baton", List.of(fast, slow, mid)));
        assertThat(r.median("Baton")).isSameAs(mid);
        assertThat(r.median("Curator")).isNull();
    }

    @Test
    void ratiosPairTurnsOfTheSameRound() {
        // Round 1 is twice as slow for everyone (a noisy neighbour); Baton is 10% slower in every turn.
        RunResult zk1 = new RunResult("ZooKeeper", 2, 300, 1, 1, 2, List.of(100.0, 200.0));
        RunResult baton1 = new RunResult("Baton", 2, 330, 1, 1, 2, List.of(110.0, 220.0));
        RunResult zk2 = new RunResult("ZooKeeper", 2, 600, 1, 1, 2, List.of(300.0, 300.0));
        RunResult baton2 = new RunResult("Baton", 2, 660, 1, 1, 2, List.of(330.0, 330.0));
        ScenarioResult r = new ScenarioResult("s", "d",
                Map.of("Baton", List.of(baton1, baton2), "ZooKeeper", List.of(zk1, zk2)));
        assertThat(r.pairedTimeRatio("Baton", "ZooKeeper")).isCloseTo(1.10, within(1e-9));
        assertThat(r.pairedTimeRatio("ZooKeeper", "ZooKeeper")).isEqualTo(1.0);
        assertThat(r.pairedTimeRatio("Baton", "Curator")).isNaN();
        assertThat(r.p50Ratio("ZooKeeper", "ZooKeeper")).isEqualTo(1.0);
        assertThat(r.p50Ratio("Baton", "Curator")).isNaN();
    }

    @Test
    void p50RatioIsTheMedianOverRounds() {
        RunResult curator1 = new RunResult("Curator", 2, 100, 200, 400, 2, List.of(50.0));
        RunResult baton1 = new RunResult("Baton", 2, 100, 100, 400, 2, List.of(50.0));
        RunResult curator2 = new RunResult("Curator", 2, 100, 100, 400, 2, List.of(50.0));
        RunResult baton2 = new RunResult("Baton", 2, 100, 90, 400, 2, List.of(50.0));
        RunResult curator3 = new RunResult("Curator", 2, 100, 400, 400, 2, List.of(50.0));
        RunResult baton3 = new RunResult("Baton", 2, 100, 100, 400, 2, List.of(50.0));
        ScenarioResult r = new ScenarioResult("s", "d",
                Map.of("Baton", List.of(baton1, baton2, baton3), "Curator", List.of(curator1, curator2, curator3)));
        assertThat(r.p50Ratio("Baton", "Curator")).isEqualTo(0.5); // of 0.5, 0.9 and 0.25
    }
}
