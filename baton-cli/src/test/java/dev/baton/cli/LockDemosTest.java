package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LockDemosTest {

    @Test
    void lockDemoCountsEveryIncrementAndRefusesTheStaleHolder() {
        Cli.Result result = baton("demo", "lock", "--speed", "20");
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).contains("6 after 6 increments: no update lost")
                .contains("REFUSED (stale token").contains("alice: LOST");
        assertThat(Demos.find("lock")).isPresent();
    }

    @Test
    void semaphoreDemoNeverLetsMoreThanTwoIn() {
        Cli.Result result = baton("demo", "semaphore", "--speed", "20");
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).contains("gave up, nothing left behind").containsPattern("at most [12] leases");
        assertThat(Demos.find("semaphore")).isPresent();
    }
}
