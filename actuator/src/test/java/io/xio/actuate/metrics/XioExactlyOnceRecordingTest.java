package io.xio.actuate.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.xio.actuate.observation.XioObservationInstrumentation;
import io.xio.engine.Metadata;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether an exactly-once call's answer was executed or replayed shows: in the counter
 * {@code xio.server.exactly.once} by {@code result}, with the call's tags, for the plain timers and for observations;
 * and on the server's span.
 */
class XioExactlyOnceRecordingTest
{
    private static final XioCall PAY = new XioCall(XioCall.Side.SERVER, "payments", "pay", "pay(String)", "tcp");

    @Test
    void theTimersCountExecutedAndReplayedAnswers()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final CallRecorder recorder = new XioTimerInstrumentation(registry).recorder(PAY);
        for (final boolean replayed : new boolean[] {false, true, true})
        {
            final Object started = recorder.start(new Metadata());
            recorder.exactlyOnce(started, replayed);
            recorder.stop(started, System.nanoTime(), XioCallOutcome.SUCCESS, null);
        }
        assertThat(registry.get(XioExactlyOnceCounter.NAME).tag("result", "executed").tag("rpc.service", "payments")
            .tag("rpc.method", "pay(String)").counter().count()).isEqualTo(1);
        assertThat(registry.get(XioExactlyOnceCounter.NAME).tag("result", "replayed").counter().count())
            .isEqualTo(2);
    }

    @Test
    void anObservationSaysOnItsSpanThatItsAnswerWasReplayedAndCountsIt()
    {
        final TestObservationRegistry observations = TestObservationRegistry.create();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final CallRecorder recorder = new XioObservationInstrumentation(observations, null, null,
            call -> new XioExactlyOnceCounter(registry, call)).recorder(PAY);
        final Object started = recorder.start(new Metadata());
        recorder.exactlyOnce(started, true);
        recorder.stop(started, System.nanoTime(), XioCallOutcome.SUCCESS, null);
        assertThat(((Observation)started).getContext().getHighCardinalityKeyValue(
            XioObservationInstrumentation.EXACTLY_ONCE).getValue()).isEqualTo("replayed");
        TestObservationRegistryAssert.assertThat(observations).hasSingleObservationThat()
            .hasHighCardinalityKeyValue(XioObservationInstrumentation.EXACTLY_ONCE, "replayed")
            .doesNotHaveLowCardinalityKeyValueWithKey(XioObservationInstrumentation.EXACTLY_ONCE);
        assertThat(registry.get(XioExactlyOnceCounter.NAME).tag("result", "replayed").counter().count())
            .isEqualTo(1);
    }
}
