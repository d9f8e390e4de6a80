package io.xio.engine.context;

import org.agrona.concurrent.NanoClock;

/**
 * Decides how an idle loop waits: spin, doze (a timed sleep) or park until woken. It learns from the gaps
 * between the end of one busy period and the next work:
 *
 * <ul>
 * <li>After work the loop spins up to the busy-poll time, as long as work often comes back within it (a reply
 * to a request just sent, a burst); when it rarely does, only a short spin is kept. That share is kept apart for
 * work after a short gap and after a long one: a request-reply client spins for its reply but not after it, when
 * the next request is a long gap away.</li>
 * <li>Gaps longer than that are averaged, with their mean deviation (as TCP estimates round-trip times); once
 * learned, one gap's error counts at most a quarter of the mean, a gap under half of it (a reply that came late)
 * is not a period, and one over four times it is a silence after which the gaps are learned afresh. When
 * they are regular (paced arrivals), the loop dozes until shortly before the expected arrival and spins through
 * a window around it, whose length is bounded by a share of the gap; a park's overshoot past its deadline,
 * large on a virtual machine, is learned too and taken off the doze. Work found on waking from a doze that
 * was on time came early: the prediction stops until the gaps are regular again.</li>
 * <li>Otherwise, or once the window passed without work, it parks: no load costs no CPU.</li>
 * </ul>
 *
 * <p>A yield phase is left out on purpose: on an otherwise idle core {@code Thread.yield} costs what a spin
 * costs and adds a system call to the latency; the doze is the cheap middle step between spinning and parking.
 * With adaptation off, or a busy-poll time of zero, it is the fixed spin-then-park of old. The loop's own
 * thread only; allocates nothing.
 */
public final class AdaptiveIdle
{
    /** Spin once ({@link Thread#onSpinWait}) and ask again. */
    public static final int SPIN = 0;
    /** Sleep for {@link #dozeNanos()}, waking early for new work. */
    public static final int DOZE = 1;
    /** Block until work comes (or a timer is due). */
    public static final int PARK = 2;

    /** The spin after work when work rarely comes back within the busy-poll time. */
    static final long SHORT_SPIN_NANOS = 5_000;
    /** Longer gaps are not predicted: a doze that long risks a late wake-up for an early arrival. */
    static final long MAX_PREDICTED_GAP_NANOS = 20_000_000;
    /** Gaps averaged before a prediction is trusted. */
    static final int MIN_SAMPLES = 4;
    /** The window spun around an expected arrival is at most this part of the gap (1/8: 12.5 % of a core). */
    static final int WINDOW_SHARE_SHIFT = 3;
    private static final long MARGIN_NANOS = 5_000;
    /** What a park overshoots before one was measured: about a timer slack and a wake-up. */
    private static final long INITIAL_OVERSHOOT_NANOS = 60_000;
    /**
     * A doze woken later than this was stalled (a GC pause, a descheduled VM), not overslept: learned as this
     * much, since an overshoot beyond the gap would end the dozes, and with them the learning, for good.
     */
    private static final long MAX_OVERSHOOT_NANOS = 1_000_000;

    private final NanoClock clock;
    private final long spinNanos;
    private final boolean adaptive;

    private long idleStart;
    private boolean idle;
    /**
     * Of the last gaps, about the share (in 1/256) that ended within the busy-poll time: [0] of those after a gap
     * that did not, [1] of those after one that did. Apart, because a reply follows a request that came after a
     * long gap, while the next request is not due for a long gap after the reply: a loop that spins for its
     * replies need not spin after them.
     */
    private final int[] hitRates = {256, 256};
    /** The last gap ended within the busy-poll time. */
    private boolean lastGapHit;
    private long gapMean;
    private long gapDeviation;
    private int samples;
    /** Gaps in a row much shorter than the learned one. */
    private int shortGaps;
    private long overshootMean = INITIAL_OVERSHOOT_NANOS;
    private long overshootDeviation;
    private long dozeUntil;
    private long dozeNanos;
    /** The last wait was a doze: work found now came while it slept. */
    private boolean dozed;

    /**
     * @param clock measures the gaps; real time in a running loop
     * @param spinNanos the busy-poll time: the longest spin after work; 0 parks at once
     * @param adaptive whether to learn; false is a fixed spin of {@code spinNanos} then a park
     */
    public AdaptiveIdle(final NanoClock clock, final long spinNanos, final boolean adaptive)
    {
        if (spinNanos < 0)
        {
            throw new IllegalArgumentException("spinNanos must be >= 0, was " + spinNanos);
        }
        this.clock = clock;
        this.spinNanos = spinNanos;
        this.adaptive = adaptive && spinNanos > 0;
    }

    /** Work came: ends the idle period, if any, and learns its length. */
    public void workArrived()
    {
        workArrived(clock.nanoTime());
    }

    /** {@link #workArrived()} at {@code now}, a reading of this strategy's clock the caller already made. */
    public void workArrived(final long now)
    {
        if (!idle)
        {
            return;
        }
        idle = false;
        final boolean onTime = learnOvershoot(now);
        final boolean early = dozed && onTime;
        dozed = false;
        if (!adaptive)
        {
            return;
        }
        final long gap = now - idleStart;
        // Work a park woke for soon after the spin would have been caught by spinning the whole busy-poll time.
        final boolean hit = gap <= spinNanos + overshootMean;
        final int after = lastGapHit ? 1 : 0;
        if (hit)
        {
            hitRates[after] += (256 - hitRates[after]) >> 3;
        }
        else
        {
            hitRates[after] -= hitRates[after] >> 3;
        }
        lastGapHit = hit;
        if (gap <= spinNanos)
        {
            return;
        }
        if (samples >= MIN_SAMPLES && gap > gapMean << 2)
        {
            samples = 0; // a silence, not a late call: the gaps that follow are learned afresh
            return;
        }
        if (samples >= MIN_SAMPLES && gap < gapMean >> 1)
        {
            // Within a period (a reply that came late, a burst): not the period itself, unless the load changed.
            if (++shortGaps < MIN_SAMPLES)
            {
                return;
            }
            samples = 0;
        }
        shortGaps = 0;
        if (early)
        {
            // It came before the window, the doze on time: this gap counts, the next must too before a doze.
            samples = MIN_SAMPLES - 2;
        }
        if (samples == 0)
        {
            gapMean = gap;
            gapDeviation = gap >> 1;
        }
        else
        {
            // Once learned, clipped: one late call (a GC pause, a preempted sender) must not make the gaps
            // irregular for long.
            final long bound = samples < MIN_SAMPLES ? Long.MAX_VALUE : gapMean >> 2;
            final long error = Math.max(-bound, Math.min(bound, gap - gapMean));
            gapMean += error >> 3;
            gapDeviation += (Math.abs(error) - gapDeviation) >> 3;
        }
        samples = Math.min(samples + 1, MIN_SAMPLES);
    }

    /** The loop found no work: what to do now. The first call after work starts an idle period. */
    public int idle()
    {
        return idle(clock.nanoTime());
    }

    /** {@link #idle()} at {@code now}, a reading of this strategy's clock the caller already made. */
    public int idle(final long now)
    {
        if (!idle)
        {
            idle = true;
            idleStart = now;
            dozeUntil = 0;
        }
        learnOvershoot(now);
        final long elapsed = now - idleStart;
        if (!adaptive)
        {
            return elapsed < spinNanos ? SPIN : PARK;
        }
        dozed = false;
        if (elapsed < spinAfterWork())
        {
            return SPIN;
        }
        if (!predictable())
        {
            return PARK;
        }
        // Spun before the expected arrival: its deviation and the doze's; after: its deviation.
        long before = 2 * gapDeviation + 3 * overshootDeviation + MARGIN_NANOS;
        long after = 2 * gapDeviation + MARGIN_NANOS;
        final long share = gapMean >> WINDOW_SHARE_SHIFT;
        if (before + after > share)
        {
            before = share * before / (before + after);
            after = share - before;
        }
        final long windowEnd = gapMean + after;
        final long windowStart = gapMean - before;
        if (elapsed >= windowEnd)
        {
            return PARK; // missed: whatever comes now is irregular
        }
        final long doze = windowStart - overshootMean - elapsed;
        if (doze <= 0)
        {
            return SPIN;
        }
        dozeNanos = doze;
        dozeUntil = now + doze;
        dozed = true;
        return DOZE;
    }

    /** Whether it learns (and dozes), rather than spinning a fixed time and parking. */
    public boolean isAdaptive()
    {
        return adaptive;
    }

    /** How long to sleep after {@link #idle()} said {@link #DOZE}. */
    public long dozeNanos()
    {
        return dozeNanos;
    }

    /**
     * The spin after work now: the busy-poll time, or a short one when work has rarely come back within it after a
     * gap like the last one (within the busy-poll time or not).
     */
    long spinAfterWork()
    {
        return hitRates[lastGapHit ? 1 : 0] >= 32 ? spinNanos : Math.min(spinNanos, SHORT_SPIN_NANOS);
    }

    /** Whether the gaps are regular enough to doze until the next one is due. */
    boolean predictable()
    {
        return samples >= MIN_SAMPLES && gapMean <= MAX_PREDICTED_GAP_NANOS && gapDeviation <= gapMean >> 3;
    }

    /** The gap expected after a spin without work: its mean; meaningful once {@link #predictable()}. */
    long expectedGap()
    {
        return gapMean;
    }

    /** What a doze is expected to overshoot its deadline by. */
    long overshoot()
    {
        return overshootMean;
    }

    /** Learns from a doze just ended; true unless it overshot far beyond what it usually does. */
    private boolean learnOvershoot(final long now)
    {
        boolean onTime = true;
        if (dozeUntil != 0)
        {
            if (now >= dozeUntil) // woken early by work or a wake-up says nothing about the timer
            {
                final long error = Math.min(now - dozeUntil, MAX_OVERSHOOT_NANOS) - overshootMean;
                onTime = error <= 2 * overshootDeviation + MARGIN_NANOS;
                overshootMean += error >> 3;
                overshootDeviation += (Math.abs(error) - overshootDeviation) >> 2;
            }
            dozeUntil = 0;
        }
        return onTime;
    }
}
