package dev.baton.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The retry schedules of the six policies, their argument checks and which failures they retry. No server. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RetryPolicyTest {
    private static final int SAMPLES = 2_000;

    private static long delayMs(RetryPolicy policy, int retryCount, Duration elapsed) {
        Optional<Duration> delay = policy.delayBeforeRetry(retryCount, elapsed);
        assertThat(delay).as("%s before retry %d after %s", policy, retryCount, elapsed).isPresent();
        return delay.get().toMillis();
    }

    private static List<Long> sample(RetryPolicy policy, int retryCount) {
        List<Long> delays = new ArrayList<>(SAMPLES);
        for (int i = 0; i < SAMPLES; i++) {
            delays.add(delayMs(policy, retryCount, Duration.ZERO));
        }
        return delays;
    }

    // ------------------------------------------------------------------------------ ExponentialBackoffRetry

    @Test
    void exponentialBackoffDelaysGrowWithinTheirRange() {
        int base = 10;
        ExponentialBackoffRetry policy = new ExponentialBackoffRetry(base, 8);
        for (int n = 0; n < 8; n++) {
            long upper = (long) base << (n + 1); // base * 2^(n+1), exclusive
            List<Long> delays = sample(policy, n);
            assertThat(delays).as("retry %d", n).allMatch(d -> d >= base && d < upper);
            assertThat(delays).as("every delay is a multiple of the base").allMatch(d -> d % base == 0);
            if (n >= 2) {
                // Randomized over the whole range: some delays land in its upper half.
                assertThat(delays).as("retry %d reaches the upper half", n).anyMatch(d -> d >= upper / 2);
            }
        }
        // The mean grows: retry 7 waits longer than retry 1 on average.
        assertThat(mean(sample(policy, 7))).isGreaterThan(mean(sample(policy, 1)) * 10);
    }

    @Test
    void exponentialBackoffStopsAfterMaxRetries() {
        ExponentialBackoffRetry policy = new ExponentialBackoffRetry(5, 3);
        assertThat(policy.getMaxRetries()).isEqualTo(3);
        for (int n = 0; n < 3; n++) {
            assertThat(policy.delayBeforeRetry(n, Duration.ZERO)).as("retry %d", n).isPresent();
        }
        assertThat(policy.delayBeforeRetry(3, Duration.ZERO)).isEmpty();
        assertThat(policy.delayBeforeRetry(4, Duration.ZERO)).isEmpty();
        assertThat(policy.delayBeforeRetry(Integer.MAX_VALUE, Duration.ZERO)).isEmpty();
        assertThat(new ExponentialBackoffRetry(5, 0).delayBeforeRetry(0, Duration.ZERO)).isEmpty();
        // Elapsed time does not matter to this policy.
        assertThat(policy.delayBeforeRetry(0, Duration.ofDays(1))).isPresent();
    }

    @Test
    void exponentialBackoffIsCappedByMaxSleep() {
        ExponentialBackoffRetry policy = new ExponentialBackoffRetry(100, 10, 250);
        assertThat(policy.getMaxSleepMs()).isEqualTo(250);
        assertThat(sample(policy, 0)).allMatch(d -> d >= 100 && d <= 200);
        for (int n = 1; n < 10; n++) {
            assertThat(sample(policy, n)).as("retry %d", n).allMatch(d -> d >= 100 && d <= 250);
        }
        assertThat(sample(policy, 9)).as("late retries hit the cap").contains(250L);
        assertThat(new ExponentialBackoffRetry(100, 3).getMaxSleepMs()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void exponentialBackoffNeverOverflows() {
        ExponentialBackoffRetry policy = new ExponentialBackoffRetry(Integer.MAX_VALUE, 1_000);
        assertThat(policy.getMaxRetries()).isEqualTo(ExponentialBackoffRetry.MAX_RETRIES_LIMIT);
        for (int n = 0; n < ExponentialBackoffRetry.MAX_RETRIES_LIMIT; n++) {
            for (int i = 0; i < 50; i++) {
                long d = delayMs(policy, n, Duration.ZERO);
                assertThat(d).as("retry %d", n).isPositive().isLessThanOrEqualTo(Integer.MAX_VALUE);
            }
        }
        assertThat(policy.delayBeforeRetry(ExponentialBackoffRetry.MAX_RETRIES_LIMIT, Duration.ZERO)).isEmpty();
        ExponentialBackoffRetry uncapped = new ExponentialBackoffRetry(1, 100);
        assertThat(sample(uncapped, ExponentialBackoffRetry.MAX_RETRIES_LIMIT - 1)).allMatch(d -> d >= 1);
    }

    @Test
    void zeroBaseSleepMeansNoWait() {
        assertThat(sample(new ExponentialBackoffRetry(0, 5), 4)).containsOnly(0L);
    }

    // ----------------------------------------------------------------------- BoundedExponentialBackoffRetry

    @Test
    void boundedExponentialBackoffTakesTheBoundBeforeTheRetryCount() {
        BoundedExponentialBackoffRetry policy = new BoundedExponentialBackoffRetry(10, 50, 4);
        assertThat(policy.getBaseSleepTimeMs()).isEqualTo(10);
        assertThat(policy.getMaxSleepMs()).isEqualTo(50);
        assertThat(policy.getMaxRetries()).isEqualTo(4);
        for (int n = 0; n < 4; n++) {
            assertThat(sample(policy, n)).as("retry %d", n).allMatch(d -> d >= 10 && d <= 50);
        }
        assertThat(sample(policy, 3)).contains(50L);
        assertThat(policy.delayBeforeRetry(4, Duration.ZERO)).isEmpty();
        assertThat(policy).isInstanceOf(RetryPolicy.class);
    }

    @Test
    void boundedExponentialBackoffNeedsABoundAtLeastTheBase() {
        assertThatIllegalArgumentException().isThrownBy(() -> new BoundedExponentialBackoffRetry(100, 50, 3))
                .withMessageContaining("maxSleepMs");
        assertThat(sample(new BoundedExponentialBackoffRetry(40, 40, 5), 4)).containsOnly(40L);
    }

    // ------------------------------------------------------------------------------------ fixed delays

    @Test
    void retryNTimesWaitsTheSameBeforeEachOfNRetries() {
        RetryNTimes policy = new RetryNTimes(3, 70);
        for (int n = 0; n < 3; n++) {
            assertThat(delayMs(policy, n, Duration.ofMinutes(n))).isEqualTo(70);
        }
        assertThat(policy.delayBeforeRetry(3, Duration.ZERO)).isEmpty();
        assertThat(new RetryNTimes(0, 70).delayBeforeRetry(0, Duration.ZERO)).isEmpty();
    }

    @Test
    void retryOneTimeRetriesOnce() {
        RetryOneTime policy = new RetryOneTime(25);
        assertThat(delayMs(policy, 0, Duration.ZERO)).isEqualTo(25);
        assertThat(policy.delayBeforeRetry(1, Duration.ZERO)).isEmpty();
        assertThat(delayMs(new RetryOneTime(0), 0, Duration.ZERO)).isZero();
    }

    @Test
    void retryUntilElapsedStopsAtTheDeadline() {
        RetryUntilElapsed policy = new RetryUntilElapsed(1_000, 100);
        assertThat(delayMs(policy, 0, Duration.ZERO)).isEqualTo(100);
        assertThat(delayMs(policy, 1_000_000, Duration.ofMillis(500))).as("the count does not matter").isEqualTo(100);
        assertThat(delayMs(policy, 5, Duration.ofMillis(950))).as("the last retry happens at the deadline")
                .isEqualTo(50);
        assertThat(policy.delayBeforeRetry(5, Duration.ofMillis(1_000))).isEmpty();
        assertThat(policy.delayBeforeRetry(0, Duration.ofMillis(1_001))).isEmpty();
        assertThat(policy.delayBeforeRetry(0, Duration.ofDays(3))).isEmpty();
        assertThat(new RetryUntilElapsed(0, 10).delayBeforeRetry(0, Duration.ZERO)).isEmpty();
    }

    @Test
    void retryForeverNeverGivesUp() {
        RetryForever policy = new RetryForever(30);
        for (int n : new int[] {0, 1, 10, 1_000, Integer.MAX_VALUE}) {
            assertThat(delayMs(policy, n, Duration.ofDays(365))).isEqualTo(30);
        }
        assertThat(delayMs(new RetryForever(0), 5, Duration.ZERO)).isZero();
    }

    // ------------------------------------------------------------------------------------ argument checks

    @Test
    void negativeArgumentsAreRejectedByName() {
        assertRejected(() -> new ExponentialBackoffRetry(-1, 3), "baseSleepMs", "-1");
        assertRejected(() -> new ExponentialBackoffRetry(10, -2), "maxRetries", "-2");
        assertRejected(() -> new ExponentialBackoffRetry(10, 3, -3), "maxSleepMs", "-3");
        assertRejected(() -> new BoundedExponentialBackoffRetry(-1, 10, 3), "baseSleepMs", "-1");
        assertRejected(() -> new BoundedExponentialBackoffRetry(1, -10, 3), "maxSleepMs", "-10");
        assertRejected(() -> new BoundedExponentialBackoffRetry(1, 10, -3), "maxRetries", "-3");
        assertRejected(() -> new RetryNTimes(-1, 10), "n ", "-1");
        assertRejected(() -> new RetryNTimes(1, -10), "sleepMsBetweenRetries", "-10");
        assertRejected(() -> new RetryOneTime(-5), "sleepMsBetweenRetr", "-5");
        assertRejected(() -> new RetryUntilElapsed(-1, 10), "maxElapsedTimeMs", "-1");
        assertRejected(() -> new RetryUntilElapsed(10, -1), "sleepMsBetweenRetries", "-1");
        assertRejected(() -> new RetryForever(-7), "retryIntervalMs", "-7");
    }

    private static void assertRejected(Supplier<RetryPolicy> make, String argument, String value) {
        assertThatIllegalArgumentException().as(argument).isThrownBy(make::get)
                .withMessageContaining(argument).withMessageContaining(value);
    }

    // -------------------------------------------------------------------------------------- retryable codes

    @Test
    void onlyConnectionLossTimeoutAndSessionMovedAreRetried() {
        Set<Code> retryable = EnumSet.of(Code.CONNECTIONLOSS, Code.OPERATIONTIMEOUT, Code.SESSIONMOVED);
        List<RetryPolicy> policies = List.of(new ExponentialBackoffRetry(1, 1), new ExponentialBackoffRetry(1, 1, 1),
                new BoundedExponentialBackoffRetry(1, 1, 1), new RetryNTimes(1, 1), new RetryOneTime(1),
                new RetryUntilElapsed(1, 1), new RetryForever(1));
        for (Code code : Code.values()) {
            boolean expected = retryable.contains(code);
            assertThat(RetryPolicy.isRetryableCode(code)).as("%s", code).isEqualTo(expected);
            for (RetryPolicy policy : policies) {
                assertThat(policy.isRetryable(code)).as("%s retries %s", policy, code).isEqualTo(expected);
            }
        }
        // Notably not retried: an expired session, and answers about the data.
        assertThat(RetryPolicy.isRetryableCode(Code.SESSIONEXPIRED)).isFalse();
        assertThat(RetryPolicy.isRetryableCode(Code.NONODE)).isFalse();
        assertThat(RetryPolicy.isRetryableCode(Code.NODEEXISTS)).isFalse();
    }

    private static double mean(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).average().orElseThrow();
    }
}
