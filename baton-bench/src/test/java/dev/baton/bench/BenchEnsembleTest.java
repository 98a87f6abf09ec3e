package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code --ensemble 3}: the run goes to three servers in their own JVMs, and they are gone afterwards. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@Tag("bench")
class BenchEnsembleTest {

    @Test
    void runsAContendedScenarioOnAThreeServerEnsembleAndStopsIt() throws Exception {
        BenchOptions options = BenchOptions.parse("--ensemble", "3", "--scenarios", "mutex-8", "--libraries",
                "baton,curator", "--ops", "40", "--slice", "20", "--rounds", "1", "--warmup-rounds", "0");
        long serversBefore = serverProcesses();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();

        BenchMain.Report report = BenchMain.run(options, Scenarios.select(options.scenarios()),
                new PrintStream(progress, true, StandardCharsets.UTF_8));

        assertThat(report.markdown()).contains("3-server ZooKeeper ensemble (separate JVMs)").contains("mutex-8")
                .contains("Baton").contains("Curator");
        assertThat(serverProcesses()).isEqualTo(serversBefore);
    }

    /** Live child processes of this JVM: the ensemble's servers while it runs. */
    private static long serverProcesses() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
    }
}
