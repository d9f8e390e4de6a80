package io.xio.engine;

import io.xio.engine.support.Backoff;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Equal-jitter exponential backoff as a pure function of the attempt and a random draw. */
class BackoffTest
{
    private final Backoff backoff = Backoff.of(Duration.ofMillis(5), Duration.ofSeconds(1));

    @Test
    void theCeilingDoublesFromTheInitialWaitUpToTheMaximum()
    {
        assertThat(backoff.ceilingNanos(0)).isEqualTo(5_000_000L);
        assertThat(backoff.ceilingNanos(1)).isEqualTo(10_000_000L);
        assertThat(backoff.ceilingNanos(7)).isEqualTo(640_000_000L);
        assertThat(backoff.ceilingNanos(8)).isEqualTo(1_000_000_000L);
        assertThat(backoff.ceilingNanos(62)).as("no overflow past the sign bit").isEqualTo(1_000_000_000L);
        assertThat(backoff.ceilingNanos(Integer.MAX_VALUE)).isEqualTo(1_000_000_000L);
        assertThat(new Backoff(1, Long.MAX_VALUE).ceilingNanos(61)).isEqualTo(1L << 61);
        assertThat(new Backoff(1, Long.MAX_VALUE).ceilingNanos(62)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aWaitLiesInTheUpperHalfOfItsStepAndTheDrawPicksWhere()
    {
        assertThat(backoff.delayNanos(0, 0L)).as("bottom of the step").isEqualTo(2_500_000L);
        assertThat(backoff.delayNanos(0, 2_500_000L)).as("top of the step").isEqualTo(5_000_000L);
        assertThat(backoff.delayNanos(0, -1L)).as("a negative draw counts from the top").isEqualTo(5_000_000L);
        assertThat(backoff.delayNanos(0, 1_000_000L)).isEqualTo(3_500_000L);
        assertThat(backoff.delayNanos(20, 0L)).isEqualTo(500_000_000L);
        final SplittableRandom random = new SplittableRandom(42);
        for (int attempt = 0; attempt < 12; attempt++)
        {
            final long ceiling = backoff.ceilingNanos(attempt);
            for (int i = 0; i < 1_000; i++)
            {
                assertThat(backoff.delayNanos(attempt, random.nextLong())).isBetween(ceiling - ceiling / 2, ceiling);
            }
        }
    }

    @Test
    void clientsThatFailedTogetherComeBackSpreadOverTheStep()
    {
        // 100 clients, their first wait each: without jitter all 100 would be 5 ms exactly.
        final SplittableRandom random = new SplittableRandom(7);
        final Set<Long> buckets = new HashSet<>();
        long least = Long.MAX_VALUE;
        long most = 0;
        for (int client = 0; client < 100; client++)
        {
            final long wait = backoff.delayNanos(0, random.nextLong());
            buckets.add(wait / 250_000L);
            least = Math.min(least, wait);
            most = Math.max(most, wait);
        }
        assertThat(buckets).as("quarter-millisecond buckets hit").hasSizeGreaterThan(8);
        assertThat(most - least).as("spread").isGreaterThan(2_000_000L);
    }

    @Test
    void theThreadsOwnRandomDrawsWithinTheSameBounds()
    {
        for (int i = 0; i < 100; i++)
        {
            assertThat(backoff.delayNanos(3)).isBetween(20_000_000L, 40_000_000L);
        }
    }

    @Test
    void refusesSchedulesThatCannotWait()
    {
        assertThatThrownBy(() -> new Backoff(0, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(5, 4)).isInstanceOf(IllegalArgumentException.class);
    }
}
