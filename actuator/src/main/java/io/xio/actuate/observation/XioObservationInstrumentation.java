package io.xio.actuate.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.xio.actuate.metrics.XioTimerInstrumentation;
import io.xio.spring.autoconfigure.observation.XioCall;
import io.xio.spring.autoconfigure.observation.XioCallOutcome;
import io.xio.spring.autoconfigure.observation.XioInstrumentation;

/**
 * Records each call as an {@link Observation} named {@code xio.client.requests} or {@code xio.server.requests}
 * (low-cardinality keys service, method, transport and outcome), so that a tracer makes spans of them and
 * Boot's meter handler the same timers {@link XioTimerInstrumentation} would. An observation is a few objects
 * per call: used only when the application has a tracer. Thread-safe.
 */
public final class XioObservationInstrumentation implements XioInstrumentation
{
    private final ObservationRegistry registry;

    public XioObservationInstrumentation(final ObservationRegistry registry)
    {
        this.registry = registry;
    }

    @Override
    public CallRecorder recorder(final XioCall call)
    {
        final String name = XioTimerInstrumentation.timerName(call.side());
        final String contextualName = call.service() + "/" + call.method();
        final KeyValues keys = KeyValues.of("service", call.service(), "method", call.method(),
            "transport", call.transport());
        return new CallRecorder()
        {
            @Override
            public Object start()
            {
                return Observation.createNotStarted(name, () -> new XioObservationContext(call), registry)
                    .contextualName(contextualName)
                    .lowCardinalityKeyValues(keys)
                    .start();
            }

            @Override
            public void stop(final Object started, final long startNanos, final XioCallOutcome outcome,
                final Throwable failure)
            {
                final Observation observation = (Observation)started;
                observation.lowCardinalityKeyValue("outcome", outcome.tag());
                if (failure != null)
                {
                    observation.error(failure);
                }
                observation.stop();
            }
        };
    }
}
