package io.xio.actuate.metrics;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.xio.actuate.observation.XioObservationDocumentation;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Counts the answered calls of one exactly-once method ({@code @XioMethod(exactlyOnce = true)}) in
 * {@value #NAME}, tagged as the call timers are but for the outcome, and with {@code result}: {@code executed} (the
 * method ran) or {@code replayed} (an earlier attempt of the call's idempotency key had committed the answer, given
 * without running). The counters are made on the first such call, then counting allocates nothing. Thread-safe.
 */
public final class XioExactlyOnceCounter implements java.util.function.Consumer<Boolean>
{
    /** Counter of exactly-once calls served, by {@code result}. */
    public static final String NAME = "xio.server.exactly.once";

    private final MeterRegistry registry;
    private final XioCall call;
    private volatile @Nullable Counter executed;
    private volatile @Nullable Counter replayed;

    public XioExactlyOnceCounter(final MeterRegistry registry, final XioCall call)
    {
        this.registry = registry;
        this.call = call;
    }

    /** One call answered: by running its method, or with the stored answer ({@code wasReplayed}). */
    public void count(final boolean wasReplayed)
    {
        Counter counter = wasReplayed ? replayed : executed;
        if (counter == null)
        {
            counter = counter(wasReplayed ? "replayed" : "executed"); // the registry gives racing threads one
            if (wasReplayed)
            {
                replayed = counter;
            }
            else
            {
                executed = counter;
            }
        }
        counter.increment();
    }

    /** {@link #count}, as a consumer of whether each call was replayed. */
    @Override
    public void accept(final Boolean wasReplayed)
    {
        count(wasReplayed);
    }

    private Counter counter(final String result)
    {
        final List<Tag> tags = new ArrayList<>();
        for (final KeyValue value : XioObservationDocumentation.lowCardinalityKeyValues(call, XioCallOutcome.SUCCESS))
        {
            if (!value.getKey().equals(XioObservationDocumentation.LowCardinalityKeyNames.STATUS.asString()) &&
                !value.getKey().equals(XioObservationDocumentation.LowCardinalityKeyNames.OUTCOME.asString()))
            {
                tags.add(Tag.of(value.getKey(), value.getValue()));
            }
        }
        tags.add(Tag.of("result", result));
        return Counter.builder(NAME).description("Exactly-once calls served, executed or replayed").tags(tags)
            .register(registry);
    }
}
