package io.xio.engine.context;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The learning of {@link AdaptiveIdle} on a fake clock: each idle period is played out step by step, a doze
 * overshooting its deadline as a timed sleep does on this kind of machine, a park or a doze waking a while after
 * the work came.
 */
class AdaptiveIdleTest
{
    private static final long SPIN = 50_000;
    private static final long STEP = 1_000;
    private static final long BUSY = 5_000;
    private static final long OVERSHOOT = 100_000;
    private static final long PARK_WAKE = 60_000;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final Random random = new Random(18);
    private AdaptiveIdle idle = new AdaptiveIdle(clock, SPIN, true);
    private int overshootJitter = 20_000;

    /** How one idle period went: what the loop was doing when the work came, and how long it spun. */
    private record Period(int foundBy, long spunNanos, long lateNanos)
    {
    }

    private Period period(final long gap)
    {
        final long arrival = clock.nanoTime() + gap;
        long spun = 0;
        int foundBy;
        while (true)
        {
            final int action = idle.idle();
            final long now = clock.nanoTime();
            if (action == AdaptiveIdle.SPIN)
            {
                if (now >= arrival)
                {
                    foundBy = AdaptiveIdle.SPIN;
                    break;
                }
                clock.advance(STEP);
                spun += STEP;
            }
            else if (action == AdaptiveIdle.DOZE)
            {
                final long wake = now + idle.dozeNanos() + OVERSHOOT + random.nextInt(overshootJitter);
                if (wake >= arrival)
                {
                    clock.update(Math.min(wake, arrival + PARK_WAKE)); // an arrival wakes a doze as it wakes a park
                    foundBy = AdaptiveIdle.DOZE;
                    break;
                }
                clock.update(wake);
            }
            else
            {
                clock.update(Math.max(now, arrival) + PARK_WAKE);
                foundBy = AdaptiveIdle.PARK;
                break;
            }
        }
        final long late = clock.nanoTime() - arrival;
        idle.workArrived();
        clock.advance(BUSY);
        return new Period(foundBy, spun, late);
    }

    @Test
    void steadyGapsSpinJustBeforeTheExpectedArrivalAndDozeTheRest()
    {
        for (int i = 0; i < 50; i++)
        {
            period(1_000_000 + random.nextInt(20_000));
        }
        int spinning = 0;
        long spun = 0;
        for (int i = 0; i < 200; i++)
        {
            final Period p = period(1_000_000 + random.nextInt(20_000));
            spinning += p.foundBy() == AdaptiveIdle.SPIN ? 1 : 0;
            spun += p.spunNanos();
        }
        assertThat(idle.predictable()).isTrue();
        assertThat(idle.overshoot()).as("learned park overshoot").isBetween(90_000L, 130_000L);
        assertThat(spinning).as("arrivals found spinning, of 200").isGreaterThan(180);
        assertThat(spun / 200).as("spin per 1 ms gap").isLessThan(1_000_000 / 8 + AdaptiveIdle.SHORT_SPIN_NANOS);
        assertThat(idle.spinAfterWork()).as("work never came back within the busy-poll time")
            .isEqualTo(AdaptiveIdle.SHORT_SPIN_NANOS);
    }

    @Test
    void aRequestReplyPatternSpinsForTheReplyAndPredictsTheNextRequest()
    {
        int spinning = 0;
        for (int i = 0; i < 300; i++)
        {
            final Period reply = period(7_000 + random.nextInt(3_000));
            final Period request = period(990_000 + random.nextInt(20_000));
            if (i >= 100)
            {
                spinning += reply.foundBy() == AdaptiveIdle.SPIN && request.foundBy() == AdaptiveIdle.SPIN ? 1 : 0;
            }
        }
        assertThat(idle.spinAfterWork()).isEqualTo(SPIN);
        assertThat(spinning).as("both found spinning, of 200").isGreaterThan(180);
    }

    @Test
    void aRequestReplyClientSpinsForItsReplyButNotAfterIt()
    {
        long spunForRequests = 0;
        int repliesSpun = 0;
        for (int i = 0; i < 300; i++)
        {
            final Period reply = period(7_000 + random.nextInt(3_000));
            if (i >= 100)
            {
                repliesSpun += reply.foundBy() == AdaptiveIdle.SPIN ? 1 : 0;
                assertThat(idle.spinAfterWork()).as("after reply " + i).isEqualTo(AdaptiveIdle.SHORT_SPIN_NANOS);
            }
            final Period request = period(990_000 + random.nextInt(20_000));
            if (i >= 100)
            {
                spunForRequests += request.spunNanos();
                assertThat(idle.spinAfterWork()).as("after request " + i).isEqualTo(SPIN);
            }
        }
        assertThat(repliesSpun).as("replies found spinning, of 200").isEqualTo(200);
        // the short spin after the reply and the window around the request; not the whole busy-poll time as well
        assertThat(spunForRequests / 200).isLessThan(1_000_000 / 8 + AdaptiveIdle.SHORT_SPIN_NANOS);
    }

    @Test
    void aReplyThatComesAfterTheSpinDoesNotStopThePredictionOfTheNextRequest()
    {
        int predicted = 0;
        for (int i = 0; i < 300; i++)
        {
            // every fourth reply is late (the peer was asleep): a gap of its own, much shorter than the period
            period(i % 4 == 0 ? 80_000 + random.nextInt(20_000) : 7_000 + random.nextInt(3_000));
            final Period request = period(900_000 + random.nextInt(20_000));
            if (i >= 100)
            {
                predicted += request.foundBy() == AdaptiveIdle.SPIN ? 1 : 0;
            }
        }
        assertThat(idle.predictable()).isTrue();
        assertThat(idle.expectedGap()).isBetween(850_000L, 950_000L);
        assertThat(predicted).as("requests found spinning, of 200").isGreaterThan(180);
    }

    @Test
    void oneLateCallDoesNotMakeTheGapsIrregular()
    {
        for (int i = 0; i < 50; i++)
        {
            period(1_000_000 + random.nextInt(20_000));
        }
        period(2_500_000); // one sender's hiccup (a GC pause on its side)
        period(1_000_000 + random.nextInt(20_000));
        assertThat(idle.predictable()).as("regular again after one gap").isTrue();
        assertThat(idle.expectedGap()).isBetween(1_000_000L, 1_100_000L);
    }

    @Test
    void aLoadThatChangesToShorterGapsIsLearnedAgain()
    {
        for (int i = 0; i < 50; i++)
        {
            period(1_000_000 + random.nextInt(20_000));
        }
        for (int i = 0; i < 30; i++)
        {
            period(200_000 + random.nextInt(5_000));
        }
        assertThat(idle.predictable()).isTrue();
        assertThat(idle.expectedGap()).as("the new gap, with what a park adds to it").isBetween(190_000L, 270_000L);
    }

    @Test
    void irregularOrLongGapsPark()
    {
        long spun = 0;
        int parked = 0;
        for (int i = 0; i < 300; i++)
        {
            final Period p = period(100_000 + random.nextInt(5_000_000));
            if (i >= 100)
            {
                spun += p.spunNanos();
                parked += p.foundBy() == AdaptiveIdle.PARK ? 1 : 0;
            }
        }
        assertThat(idle.predictable()).isFalse();
        assertThat(parked).isEqualTo(200);
        assertThat(spun / 200).isLessThanOrEqualTo(AdaptiveIdle.SHORT_SPIN_NANOS);
        idle = new AdaptiveIdle(clock, SPIN, true);
        for (int i = 0; i < 20; i++)
        {
            assertThat(period(AdaptiveIdle.MAX_PREDICTED_GAP_NANOS * 2).foundBy()).isEqualTo(AdaptiveIdle.PARK);
        }
        assertThat(idle.predictable()).as("regular, but too far apart to predict").isFalse();
    }

    @Test
    void noLoadParksAndTheLearnedBudgetDecays()
    {
        for (int i = 0; i < 50; i++)
        {
            period(1_000_000);
        }
        assertThat(idle.predictable()).isTrue();
        int action;
        long spun = 0;
        while ((action = idle.idle()) != AdaptiveIdle.PARK)
        {
            if (action == AdaptiveIdle.SPIN)
            {
                clock.advance(STEP);
                spun += STEP;
            }
            else
            {
                clock.advance(idle.dozeNanos() + OVERSHOOT);
            }
        }
        assertThat(spun).as("one window, then parked").isLessThan(1_000_000 / 8 + AdaptiveIdle.SHORT_SPIN_NANOS);
        clock.advance(10_000_000_000L); // ten seconds of nothing
        assertThat(idle.idle()).isEqualTo(AdaptiveIdle.PARK);
        idle.workArrived();
        clock.advance(BUSY);
        assertThat(idle.predictable()).as("a long silence ends the prediction").isFalse();
        assertThat(period(1_000_000).foundBy()).isEqualTo(AdaptiveIdle.PARK);
    }

    @Test
    void burstsSpin()
    {
        for (int i = 0; i < 20; i++)
        {
            period(2_000_000 + random.nextInt(2_000_000)); // quiet: the spin after work shrinks
        }
        assertThat(idle.spinAfterWork()).isEqualTo(AdaptiveIdle.SHORT_SPIN_NANOS);
        int spinning = 0;
        for (int i = 0; i < 100; i++)
        {
            spinning += period(20_000 + random.nextInt(10_000)).foundBy() == AdaptiveIdle.SPIN ? 1 : 0;
        }
        assertThat(spinning).as("burst arrivals found spinning, of 100").isGreaterThan(90);
        assertThat(idle.spinAfterWork()).isEqualTo(SPIN);
    }

    @Test
    void aNoisyParkKeepsTheWindowWithinAnEighthOfTheGap()
    {
        overshootJitter = 400_000; // a busy VM: the park's overshoot varies by far more than the gaps
        long spun = 0;
        int dozed = 0;
        for (int i = 0; i < 300; i++)
        {
            final Period p = period(1_000_000 + random.nextInt(20_000));
            if (i >= 100)
            {
                spun += p.spunNanos();
                dozed += p.foundBy() == AdaptiveIdle.PARK ? 0 : 1;
            }
        }
        assertThat(dozed).as("predicted, of 200").isGreaterThan(150);
        assertThat(spun / 200).as("spin per 1 ms gap").isLessThan(1_000_000 / 8 + AdaptiveIdle.SHORT_SPIN_NANOS);
    }

    @Test
    void anArrivalDuringADozeStopsThePredictionForAGap()
    {
        for (int i = 0; i < 50; i++)
        {
            period(1_000_000);
        }
        assertThat(idle.predictable()).isTrue();
        int action;
        while ((action = idle.idle()) == AdaptiveIdle.SPIN)
        {
            clock.advance(STEP);
        }
        assertThat(action).isEqualTo(AdaptiveIdle.DOZE);
        clock.advance(idle.dozeNanos() + idle.overshoot()); // on time; the socket got ready while it slept
        idle.workArrived();
        assertThat(idle.predictable()).as("work came early: no prediction until a regular gap").isFalse();
    }

    @Test
    void oneStallDuringADozeDoesNotTurnTheDozesIntoSpinningForGood()
    {
        for (int i = 0; i < 50; i++)
        {
            period(1_000_000 + random.nextInt(20_000));
        }
        int action;
        while ((action = idle.idle()) == AdaptiveIdle.SPIN)
        {
            clock.advance(STEP);
        }
        assertThat(action).isEqualTo(AdaptiveIdle.DOZE);
        clock.advance(idle.dozeNanos() + 20_000_000); // a 20 ms pause (GC, a descheduled VM) during one doze
        idle.workArrived();
        clock.advance(BUSY);
        for (int i = 0; i < 300; i++)
        {
            period(1_000_000 + random.nextInt(20_000));
        }
        long spun = 0;
        for (int i = 0; i < 100; i++)
        {
            spun += period(1_000_000 + random.nextInt(20_000)).spunNanos();
        }
        assertThat(idle.predictable()).isTrue();
        assertThat(spun / 100).as("spin per 1 ms gap, long after the stall")
            .isLessThan(1_000_000 / 8 + AdaptiveIdle.SHORT_SPIN_NANOS);
    }

    @Test
    void theFixedModesStayFixed()
    {
        idle = new AdaptiveIdle(clock, 0, true);
        assertThat(idle.idle()).as("a busy-poll time of 0 parks at once").isEqualTo(AdaptiveIdle.PARK);
        idle.workArrived();
        idle = new AdaptiveIdle(clock, SPIN, false);
        for (int i = 0; i < 50; i++)
        {
            final Period p = period(1_000_000);
            assertThat(p.foundBy()).isEqualTo(AdaptiveIdle.PARK);
            assertThat(p.spunNanos()).isEqualTo(SPIN);
        }
        idle = new AdaptiveIdle(clock, 1_000_000_000L, true);
        for (int i = 0; i < 50; i++)
        {
            assertThat(period(1_000_000 + random.nextInt(500_000)).foundBy()).as("a long busy-poll spins")
                .isEqualTo(AdaptiveIdle.SPIN);
        }
    }
}
