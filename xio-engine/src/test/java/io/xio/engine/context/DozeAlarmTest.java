package io.xio.engine.context;

import org.junit.jupiter.api.Test;

import java.nio.channels.Selector;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * What makes a doze end on time: the alarm wakes a selector blocked far beyond the doze, not one whose doze was
 * cleared, and a context thread's timer slack is the short one.
 */
class DozeAlarmTest
{
    @Test
    void aDueDozeWakesItsSelectorAndAClearedOneDoesNot() throws Exception
    {
        try (Selector selector = Selector.open(); DozeAlarm alarm = new DozeAlarm("doze-test", 2))
        {
            final long start = System.nanoTime();
            alarm.set(1, selector, start + TimeUnit.MILLISECONDS.toNanos(2));
            selector.select(TimeUnit.SECONDS.toMillis(30));
            assertThat(System.nanoTime() - start).as("woken by the alarm, not the 30 s timeout")
                .isLessThan(TimeUnit.SECONDS.toNanos(10));

            alarm.set(0, selector, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
            alarm.clear(0);
            final long cleared = System.nanoTime();
            selector.select(300);
            assertThat(System.nanoTime() - cleared).as("a cleared doze is not woken")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> Thread.getAllStackTraces().keySet().stream()
            .noneMatch(t -> t.getName().equals("doze-test-doze-alarm")));
    }

    @Test
    void aContextThreadRunsWithAShortTimerSlack() throws Exception
    {
        assumeThat(TimerSlack.current()).as("Linux with /proc/<tid>/timerslack_ns").isPositive();
        final java.util.concurrent.CompletableFuture<Long> seen = new java.util.concurrent.CompletableFuture<>();
        try (io.xio.engine.XioEngine engine = io.xio.engine.XioEngine.builder().contexts(1).build())
        {
            engine.contexts().get(0).execute(() -> seen.complete(TimerSlack.current()));
            assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo(TimerSlack.CONTEXT_THREAD_NANOS);
        }
        assertThat(TimerSlack.current()).as("only the thread that asked").isNotEqualTo(TimerSlack.CONTEXT_THREAD_NANOS);
    }
}
