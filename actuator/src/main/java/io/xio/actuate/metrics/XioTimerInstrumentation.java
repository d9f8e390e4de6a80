package io.xio.actuate.metrics;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.xio.actuate.observation.XioObservationDocumentation;
import io.xio.engine.Metadata;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Times calls with Micrometer timers {@code xio.client.requests} and {@code xio.server.requests}, tagged as
 * {@link XioObservationDocumentation} lists ({@code rpc.system}, {@code rpc.service}, {@code rpc.method},
 * {@code rpc.xio.status}, {@code xio.transport}, and service, method, outcome and transport). Each kind of call
 * keeps its timers (one per outcome, made on first use), so recording a call is one clock read and one timer
 * update: nothing is allocated per call. A stream is one call, timed from its opening to its end; the messages it
 * sent and received add to the counters {@code xio.client.stream.messages} and {@code xio.server.stream.messages}
 * (tagged as the timers, but for the outcome, and with {@code direction}); an exactly-once method's calls add to
 * {@value XioExactlyOnceCounter#NAME} ({@link XioExactlyOnceCounter}). Used when
 * the application has no tracer; with one, {@link io.xio.actuate.observation.XioObservationInstrumentation}
 * records the same timers through the Observation API. Thread-safe.
 */
public final class XioTimerInstrumentation implements XioInstrumentation
{
    /** Timer of calls made through client proxies. */
    public static final String CLIENT_REQUESTS = "xio.client.requests";
    /** Timer of calls served by exported beans. */
    public static final String SERVER_REQUESTS = "xio.server.requests";
    /** Counter of the messages of streams made through client proxies, tagged {@code direction} sent or received. */
    public static final String CLIENT_STREAM_MESSAGES = "xio.client.stream.messages";
    /** Counter of the messages of streams served by exported beans, tagged {@code direction} sent or received. */
    public static final String SERVER_STREAM_MESSAGES = "xio.server.stream.messages";

    private static final XioCallOutcome[] OUTCOMES = XioCallOutcome.values();

    private final MeterRegistry registry;

    public XioTimerInstrumentation(final MeterRegistry registry)
    {
        this.registry = registry;
    }

    @Override
    public CallRecorder recorder(final XioCall call)
    {
        return new TimerRecorder(call);
    }

    /** The timer name for a side. */
    public static String timerName(final XioCall.Side side)
    {
        return side == XioCall.Side.CLIENT ? CLIENT_REQUESTS : SERVER_REQUESTS;
    }

    /** The same tags as an observation of the call would have. */
    private static List<Tag> tags(final XioCall call, final XioCallOutcome outcome)
    {
        final List<Tag> tags = new ArrayList<>();
        for (final KeyValue value : XioObservationDocumentation.lowCardinalityKeyValues(call, outcome))
        {
            tags.add(Tag.of(value.getKey(), value.getValue()));
        }
        return tags;
    }

    private final class TimerRecorder implements CallRecorder
    {
        private final XioCall call;
        private final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(OUTCOMES.length);
        /** The counters of sent and received stream messages, made when the first stream of the kind ends. */
        private volatile io.micrometer.core.instrument.@Nullable Counter sent;
        private volatile io.micrometer.core.instrument.@Nullable Counter received;
        /** Counts an exactly-once method's calls, made on its first answer. */
        private volatile @Nullable XioExactlyOnceCounter exactlyOnce;

        TimerRecorder(final XioCall call)
        {
            this.call = call;
        }

        @Override
        public @Nullable Object start(final Metadata metadata)
        {
            return null;
        }

        @Override
        public void stop(final Object started, final long startNanos, final XioCallOutcome outcome,
            final Throwable failure)
        {
            timer(outcome).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void exactlyOnce(final @Nullable Object started, final boolean replayed)
        {
            XioExactlyOnceCounter counter = exactlyOnce;
            if (counter == null)
            {
                counter = new XioExactlyOnceCounter(registry, call);
                exactlyOnce = counter;
            }
            counter.count(replayed);
        }

        @Override
        public void streamed(final @Nullable Object started, final long sentMessages, final long receivedMessages)
        {
            if (sent == null)
            {
                sent = counter("sent");
                received = counter("received");
            }
            sent.increment(sentMessages);
            received.increment(receivedMessages);
        }

        private io.micrometer.core.instrument.Counter counter(final String direction)
        {
            final List<Tag> tags = new ArrayList<>();
            for (final Tag tag : tags(call, XioCallOutcome.SUCCESS))
            {
                if (!tag.getKey().equals(XioObservationDocumentation.LowCardinalityKeyNames.STATUS.asString()) &&
                    !tag.getKey().equals(XioObservationDocumentation.LowCardinalityKeyNames.OUTCOME.asString()))
                {
                    tags.add(tag);
                }
            }
            tags.add(Tag.of("direction", direction));
            return io.micrometer.core.instrument.Counter.builder(call.side() == XioCall.Side.CLIENT
                    ? CLIENT_STREAM_MESSAGES : SERVER_STREAM_MESSAGES)
                .description("Messages of xio streams, " + direction)
                .tags(tags)
                .register(registry);
        }

        private Timer timer(final XioCallOutcome outcome)
        {
            Timer timer = timers.get(outcome.ordinal());
            if (timer == null)
            {
                timer = Timer.builder(timerName(call.side()))
                    .description(call.side() == XioCall.Side.CLIENT ? "Calls made through xio client proxies"
                        : "Calls served by xio services")
                    .tags(tags(call, outcome))
                    .register(registry); // the registry returns the same timer to racing threads
                timers.set(outcome.ordinal(), timer);
            }
            return timer;
        }
    }
}
