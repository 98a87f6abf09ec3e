package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The chaos runner's hold on Curator's bounded calls that can outrun their bound. */
@Timeout(30)
class CuratorRecipesTest {

    @Test
    void aStepThatOutrunsItsLimitIsInterruptedAndFailsSayingSo() {
        CountDownLatch never = new CountDownLatch(1);
        assertThatThrownBy(() -> CuratorRecipes.held(50, 50, "enter", () -> never.await(1, TimeUnit.HOURS)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Curator's enter did not return within its limit of 50 ms");
        assertThat(Thread.currentThread().isInterrupted()).as("the watchdog's interrupt is not left behind").isFalse();
    }

    @Test
    void aStepWithinItsLimitKeepsItsAnswerAndAStopStaysAStop() throws Exception {
        assertThat(CuratorRecipes.held(10_000, 50, "leave", () -> true)).isTrue();
        assertThat(CuratorRecipes.held(10_000, 50, "leave", () -> false)).isFalse();
        Thread.currentThread().interrupt(); // a stop, before the step: the step's InterruptedException goes through
        assertThatThrownBy(() -> CuratorRecipes.held(10_000, 50, "enter", () -> {
            Thread.sleep(1_000);
            return true;
        })).isInstanceOf(InterruptedException.class);
    }
}
