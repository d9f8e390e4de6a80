package io.xio.engine.support;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with equal jitter, for whatever tries again after a failure: the engine's re-attach after a
 * lost connection, a client's retry of an idempotent call. Wait {@code n} (from 0) is drawn uniformly from the upper
 * half of {@code min(max, initial × 2^n)}. Without jitter, clients that lost the same server come back to it in
 * lock-step, one wave per step of the schedule; with it they spread over half the step. Equal rather than full
 * jitter keeps a floor of half the step, so the schedule still doubles and a dead peer is never retried in a tight
 * loop. Immutable; any thread; allocates nothing.
 *
 * @param initialNanos the first wait's ceiling, positive
 * @param maxNanos the ceiling of every wait, at least {@code initialNanos}
 */
public record Backoff(long initialNanos, long maxNanos)
{
    public Backoff
    {
        if (initialNanos <= 0 || maxNanos < initialNanos)
        {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, was initial " + initialNanos +
                "ns, max " + maxNanos + "ns");
        }
    }

    public static Backoff of(final Duration initial, final Duration max)
    {
        return new Backoff(initial.toNanos(), max.toNanos());
    }

    /** The schedule without jitter: {@code initial × 2^attempt}, at most {@code max}. */
    public long ceilingNanos(final int attempt)
    {
        // A shift that would reach the sign bit is past any max anyway.
        if (attempt >= Long.numberOfLeadingZeros(initialNanos) - 1)
        {
            return maxNanos;
        }
        return Math.min(maxNanos, initialNanos << Math.max(attempt, 0));
    }

    /**
     * The wait before attempt {@code attempt} (from 0), from {@code ceiling - ceiling / 2} to {@code ceiling};
     * {@code random} picks where (any long, uniformly distributed for an even spread). A pure function, so tests
     * need no random source.
     */
    public long delayNanos(final int attempt, final long random)
    {
        final long ceiling = ceilingNanos(attempt);
        final long half = ceiling >>> 1;
        return ceiling - half + Math.floorMod(random, half + 1);
    }

    /** {@link #delayNanos(int, long)} with a draw from the calling thread's {@link ThreadLocalRandom}. */
    public long delayNanos(final int attempt)
    {
        return delayNanos(attempt, ThreadLocalRandom.current().nextLong());
    }
}
