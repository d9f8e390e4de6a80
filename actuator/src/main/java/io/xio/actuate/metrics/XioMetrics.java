package io.xio.actuate.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.xio.engine.Context;
import io.xio.engine.EngineStatistics;
import io.xio.engine.PeerRefusal;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The engine's own figures as meters: messages and bytes each way, writes and frames per write (coalescing),
 * retransmits, back-pressure refusals, each context's busy and idle time, and gauges of active sessions, connections,
 * requests in flight and executing, and open streams. All are read from the engine's counters when scraped, so the data
 * path pays nothing for them.
 */
public final class XioMetrics implements MeterBinder
{
    private final XioEngine engine;

    public XioMetrics(final XioEngine engine)
    {
        this.engine = engine;
    }

    @Override
    public void bindTo(final MeterRegistry registry)
    {
        final String name = engine.name();
        counter(registry, "xio.frames.sent", "Frames (messages, answers, control) committed to transports", null,
            EngineStatistics::framesSent);
        counter(registry, "xio.frames.received", "Whole frames received", null, EngineStatistics::framesReceived);
        counter(registry, "xio.data.sent", "Bytes written by transports", BaseUnits.BYTES, EngineStatistics::bytesSent);
        counter(registry, "xio.data.received", "Bytes of frames received", BaseUnits.BYTES,
            EngineStatistics::bytesReceived);
        counter(registry, "xio.writes", "Transport writes (gathering writes, ring hand-overs)", null,
            EngineStatistics::writes);
        counter(registry, "xio.retransmits", "Requests sent again after a connection failed", null,
            EngineStatistics::retransmits);
        counter(registry, "xio.backpressure.rejections", "Requests refused for lack of room, here or by the peer",
            null, EngineStatistics::backPressureRejections);
        for (final PeerRefusal kind : PeerRefusal.values())
        {
            FunctionCounter.builder("xio.peer.refusals", engine, e -> e.refusals(kind))
                .description("What peers were refused or cut off for (a hostile, broken or too tightly limited peer)")
                .tags("engine", name, "kind", kind.name().toLowerCase(java.util.Locale.ROOT)).register(registry);
        }
        Gauge.builder("xio.frames.per.write", engine, e -> e.statistics().framesPerWrite())
            .description("Frames per transport write since start: above 1 when small messages coalesce")
            .tag("engine", name).register(registry);
        for (final Context context : engine.contexts())
        {
            FunctionCounter.builder("xio.context.busy", context,
                    c -> c.statistics().busyNanos() / (double)TimeUnit.SECONDS.toNanos(1))
                .description("Time the context's thread spent working").baseUnit("seconds")
                .tags("engine", name, "context", context.name()).register(registry);
            FunctionCounter.builder("xio.context.idle", context,
                    c -> c.statistics().idleNanos() / (double)TimeUnit.SECONDS.toNanos(1))
                .description("Time the context's thread found no work, spinning or parked").baseUnit("seconds")
                .tags("engine", name, "context", context.name()).register(registry);
        }
        for (final boolean serverSide : new boolean[] {false, true})
        {
            final String side = serverSide ? "server" : "client";
            gauge(registry, "xio.sessions.active", "Open sessions", side, serverSide, s -> 1);
            gauge(registry, "xio.connections.active", "Connections up", side, serverSide, Session::connectionCount);
            gauge(registry, "xio.requests.in.flight", "Requests sent and not finished", side, serverSide,
                s -> s.statistics().inFlight());
            gauge(registry, "xio.requests.executing", "Requests from peers being handled here", side, serverSide,
                s -> s.statistics().executing());
            gauge(registry, "xio.streams.open", "Streams open, of either side", side, serverSide,
                s -> s.statistics().openStreams());
        }
    }

    private void counter(final MeterRegistry registry, final String meter, final String description,
        final @Nullable String unit, final ToLongFunction<EngineStatistics> figure)
    {
        FunctionCounter.builder(meter, engine, e -> figure.applyAsLong(e.statistics()))
            .description(description).baseUnit(unit).tag("engine", engine.name()).register(registry);
    }

    private void gauge(final MeterRegistry registry, final String meter, final String description, final String side,
        final boolean serverSide, final ToIntFunction<Session> figure)
    {
        Gauge.builder(meter, engine, e ->
            {
                double sum = 0;
                for (final Session session : e.sessions())
                {
                    if (session.isServerSide() == serverSide)
                    {
                        sum += figure.applyAsInt(session);
                    }
                }
                return sum;
            })
            .description(description).tags("engine", engine.name(), "side", side).register(registry);
    }
}
