package io.xio.actuate.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.xio.actuate.metrics.XioExactlyOnceCounter;
import io.xio.actuate.metrics.XioTimerInstrumentation;
import io.xio.engine.Metadata;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import org.jspecify.annotations.Nullable;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Records each call as an {@link Observation} ({@code xio.client.requests} or {@code xio.server.requests}, as the
 * conventions name them), so that a tracer makes CLIENT and SERVER spans of them and Boot's meter handler the
 * same timers {@link XioTimerInstrumentation} would. The trace crosses the wire: the client's observation writes
 * the trace context into the request's metadata, the server's reads it from there, and the server's is current
 * (a scope) while the service method runs. A stream is one observation, from its opening to its end, with the
 * messages it sent and received as high-cardinality key values ({@code xio.stream.messages.sent},
 * {@code xio.stream.messages.received}); an exactly-once call's says whether its answer was executed or replayed
 * ({@value #EXACTLY_ONCE}), and counts in the counters given ({@link XioExactlyOnceCounter}). An observation
 * is a few objects per call: used only when the
 * application has a tracer. Thread-safe.
 */
public final class XioObservationInstrumentation implements XioInstrumentation
{
    /**
     * The span attribute of an exactly-once call served: {@code executed} or {@code replayed}. High cardinality, so
     * that it stays off the timers, whose tags every call shares.
     */
    public static final String EXACTLY_ONCE = "xio.exactly.once";

    private final ObservationRegistry registry;
    private final @Nullable XioClientObservationConvention clientConvention;
    private final @Nullable XioServerObservationConvention serverConvention;
    private final @Nullable Function<XioCall, ? extends Consumer<Boolean>> exactlyOnceCounters;

    /** Observations named by the default conventions (or global ones registered with {@code registry}). */
    public XioObservationInstrumentation(final ObservationRegistry registry)
    {
        this(registry, null, null);
    }

    /** Without a counter of exactly-once calls. */
    public XioObservationInstrumentation(final ObservationRegistry registry,
        final @Nullable XioClientObservationConvention clientConvention,
        final @Nullable XioServerObservationConvention serverConvention)
    {
        this(registry, clientConvention, serverConvention, null);
    }

    /**
     * @param registry where observations go
     * @param clientConvention names client calls instead of the default convention, or null
     * @param serverConvention names served calls instead of the default convention, or null
     * @param exactlyOnceCounters the counter of an exactly-once method's calls, told whether each was replayed (an
     *                            {@link XioExactlyOnceCounter}, say), or null for none; a function, so that this
     *                            class needs no Micrometer core without it
     */
    public XioObservationInstrumentation(final ObservationRegistry registry,
        final @Nullable XioClientObservationConvention clientConvention,
        final @Nullable XioServerObservationConvention serverConvention,
        final @Nullable Function<XioCall, ? extends Consumer<Boolean>> exactlyOnceCounters)
    {
        this.exactlyOnceCounters = exactlyOnceCounters;
        this.registry = registry;
        this.clientConvention = clientConvention;
        this.serverConvention = serverConvention;
    }

    @Override
    public CallRecorder recorder(final XioCall call)
    {
        return call.side() == XioCall.Side.CLIENT ? new ClientRecorder(call) : new ServerRecorder(call);
    }

    private final class ClientRecorder extends ObservationRecorder
    {
        ClientRecorder(final XioCall call)
        {
            super(call);
        }

        @Override
        public boolean propagates()
        {
            return true;
        }

        @Override
        public Object start(final Metadata metadata)
        {
            final XioClientObservationContext context = new XioClientObservationContext(call, metadata);
            return XioObservationDocumentation.CLIENT.observation(clientConvention,
                DefaultXioClientObservationConvention.INSTANCE, () -> context, registry).start();
        }
    }

    private final class ServerRecorder extends ObservationRecorder
    {
        /** Counts an exactly-once method's calls, made on its first answer. */
        private volatile @Nullable Consumer<Boolean> exactlyOnce;

        ServerRecorder(final XioCall call)
        {
            super(call);
        }

        @Override
        public void exactlyOnce(final @Nullable Object started, final boolean replayed)
        {
            // On the span: whether the method ran, or the answer of an earlier attempt of the call's key was given.
            ((Observation)started).highCardinalityKeyValue(EXACTLY_ONCE, replayed ? "replayed" : "executed");
            if (exactlyOnceCounters != null)
            {
                Consumer<Boolean> counter = exactlyOnce;
                if (counter == null)
                {
                    counter = exactlyOnceCounters.apply(call);
                    exactlyOnce = counter;
                }
                counter.accept(replayed);
            }
        }

        @Override
        public Object start(final Metadata metadata)
        {
            final XioServerObservationContext context = new XioServerObservationContext(call, metadata);
            return XioObservationDocumentation.SERVER.observation(serverConvention,
                DefaultXioServerObservationConvention.INSTANCE, () -> context, registry).start();
        }

        @Override
        public Scope openScope(final Object started)
        {
            return ((Observation)started).openScope()::close;
        }
    }

    /** What both sides' recorders share: a stream's messages and stopping. */
    private abstract static class ObservationRecorder implements CallRecorder
    {
        final XioCall call;

        ObservationRecorder(final XioCall call)
        {
            this.call = call;
        }

        @Override
        public void streamed(final @Nullable Object started, final long sent, final long received)
        {
            // On the span (high cardinality): the counts differ per stream.
            ((Observation)started).highCardinalityKeyValue("xio.stream.messages.sent", Long.toString(sent))
                .highCardinalityKeyValue("xio.stream.messages.received", Long.toString(received));
        }

        @Override
        public void stop(final Object started, final long startNanos, final XioCallOutcome outcome,
            final @Nullable Throwable failure)
        {
            final Observation observation = (Observation)started;
            if (observation.getContext() instanceof XioObservationContext context)
            {
                context.outcome(outcome); // the conventions read it as the observation stops
            }
            if (failure != null)
            {
                observation.error(failure);
            }
            observation.stop();
        }
    }
}
