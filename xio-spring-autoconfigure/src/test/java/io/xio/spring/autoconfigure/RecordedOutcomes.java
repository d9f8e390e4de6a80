package io.xio.spring.autoconfigure;

import io.xio.engine.Metadata;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Instrumentation that keeps each recorded call's outcome, in order: what a test asserts a client recorded. */
final class RecordedOutcomes implements XioInstrumentation
{
    final List<XioCallOutcome> recorded = new CopyOnWriteArrayList<>();

    @Override
    public CallRecorder recorder(final XioCall call)
    {
        return new CallRecorder()
        {
            @Override
            public Object start(final Metadata carrier)
            {
                return null;
            }

            @Override
            public void stop(final Object started, final long startNanos, final XioCallOutcome outcome,
                final Throwable failure)
            {
                recorded.add(outcome);
            }
        };
    }
}
