package io.xio.benchmarks.compare.peers;

import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.Variant;
import io.xio.benchmarks.compare.Workload;
import io.xio.engine.EngineStatistics;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;

/**
 * The xio engine through its public API. Variant keys: transport {@code tcp}, {@code tls} or {@code shm}; {@code ctx=N}
 * contexts on each side (the server binds one portal per context, the client opens one session to each);
 * {@code poll=spin|default|parked} (busy-poll 1 s, the default 50 µs, or 0); {@code style=context} issues each
 * call from the previous completion on the context thread, {@code style=caller} blocks the main thread on each
 * future. The payload travels as one data segment; echoes send the received segment back without a copy.
 */
public final class XioPeer implements Peer
{
    private static final ByteBuffer NO_HEADER = ByteBuffer.allocate(0);
    private static final String RESOURCE = "bench";

    @Override
    public Server serve(final String variantText, final Workload workload) throws Exception
    {
        final Variant variant = Variant.parse(variantText);
        final int contexts = variant.integer("ctx", 1);
        final java.nio.file.Path store = transport(variant).equals("tls") ? BenchTls.create() : null;
        final XioEngine engine = engine("bench-server", variant, contexts, store);
        final ByteBuffer[] ack = {ByteBuffer.allocateDirect(workload.responseBytes())};
        final boolean traced = variant.has("traceparent");
        engine.register(RESOURCE, request ->
        {
            final Message in = request.message();
            if (traced && in.metadata().get("traceparent") == null) // read, as a tracing interceptor does
            {
                throw new IllegalStateException("the request came without its traceparent");
            }
            if (workload.isEcho())
            {
                request.respond(Outbound.of(NO_HEADER, in.segment(0)).releaseAfterSend(in));
            }
            else
            {
                in.close();
                request.respond(Outbound.of(NO_HEADER, ack));
            }
        });
        final List<String> uris = new ArrayList<>();
        for (int i = 0; i < contexts; i++)
        {
            final String portal = transport(variant).equals("shm")
                ? "shm://bench-" + UUID.randomUUID().toString().substring(0, 8)
                : transport(variant) + "://127.0.0.1:0";
            uris.add(engine.bind(portal, io.xio.engine.SessionAcceptor.DEFAULT, i).uri().withResource(RESOURCE).toString());
        }
        final String address = store == null ? String.join(",", uris) : BenchTls.withStore(String.join(",", uris), store);
        return new Server()
        {
            @Override
            public String address()
            {
                return address;
            }

            @Override
            public void close()
            {
                engine.close();
                if (store != null)
                {
                    BenchTls.delete(store);
                }
            }
        };
    }

    @Override
    public Measurement run(final String variantText, final String address, final Workload workload) throws Exception
    {
        final Variant variant = Variant.parse(variantText);
        final int contexts = variant.integer("ctx", 1);
        final String style = variant.oneOf("style", "context", "context", "caller");
        try (XioEngine engine = engine("bench-client", variant, contexts, BenchTls.store(address)))
        {
            final List<Session> sessions = new ArrayList<>();
            for (final String uri : BenchTls.address(address).split(","))
            {
                sessions.add(engine.connect(uri));
            }
            // one array for every call: Outbound keeps it as given and never changes it
            final ByteBuffer[] payload = {engine.register(ByteBuffer.allocateDirect(workload.requestBytes()))};
            // A W3C trace context, made once (a tracer makes one per call; encoding it allocates nothing).
            final io.xio.engine.Metadata trace = variant.has("traceparent") ? new io.xio.engine.Metadata()
                .add("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") : null;
            final EngineStatistics before = engine.statistics();
            final java.util.function.DoubleSupplier framesPerWrite = () ->
            {
                final EngineStatistics after = engine.statistics();
                final long writes = after.writes() - before.writes();
                return writes == 0 ? Double.NaN : (after.framesSent() - before.framesSent()) / (double)writes;
            };
            try
            {
                if (style.equals("caller"))
                {
                    if (workload.outstanding() != 1)
                    {
                        throw new IllegalArgumentException("style=caller blocks on each call: 1 outstanding only");
                    }
                    final Session session = sessions.get(0);
                    return CallLoop.blocking(workload,
                        () -> session.request(Outbound.of(NO_HEADER, payload).metadata(trace)).get().close(), framesPerWrite);
                }
                @SuppressWarnings("unchecked")
                final BiConsumer<Message, Throwable>[] callbacks = new BiConsumer[workload.outstanding()];
                final CallLoop.AsyncCall call = slot ->
                {
                    BiConsumer<Message, Throwable> callback = callbacks[slot.index()];
                    if (callback == null)
                    {
                        callback = (reply, error) ->
                        {
                            if (reply != null)
                            {
                                reply.close();
                            }
                            slot.completed(error);
                        };
                        callbacks[slot.index()] = callback;
                    }
                    sessions.get(slot.index() % sessions.size()).request(Outbound.of(NO_HEADER, payload)
                        .metadata(trace)).whenComplete(callback);
                };
                final int[] next = new int[1];
                return CallLoop.pipelined(workload, call,
                    task -> engine.contexts().get(next[0]++ % contexts).execute(task), framesPerWrite);
            }
            finally
            {
                sessions.forEach(Session::close);
            }
        }
    }

    private static String transport(final Variant variant)
    {
        final List<String> named = new ArrayList<>();
        for (final String scheme : new String[] {"tcp", "tls", "shm"})
        {
            if (variant.has(scheme))
            {
                named.add(scheme);
            }
        }
        if (named.size() != 1)
        {
            throw new IllegalArgumentException("xio variant needs exactly one transport, tcp, tls or shm");
        }
        return named.get(0);
    }

    private static XioEngine engine(final String name, final Variant variant, final int contexts,
        final java.nio.file.Path store) throws Exception
    {
        final Duration busyPoll = switch (variant.oneOf("poll", "default", "spin", "default", "parked"))
        {
            case "spin" -> Duration.ofSeconds(1);
            case "parked" -> Duration.ZERO;
            default -> Duration.ofNanos(50_000);
        };
        final XioEngine.Builder builder = XioEngine.builder().name(name).contexts(contexts).busyPoll(busyPoll);
        if (store != null)
        {
            builder.tls(io.xio.engine.TlsOptions.of(BenchTls.context(store)));
        }
        return builder.build();
    }
}
