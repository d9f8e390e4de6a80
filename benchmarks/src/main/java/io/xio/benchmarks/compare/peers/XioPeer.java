package io.xio.benchmarks.compare.peers;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointStatus;
import io.xio.cluster.ServiceClient;
import io.xio.cluster.StaticEndpointResolver;
import io.xio.engine.PortalOptions;
import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.HeldProbe;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.StreamLoop;
import io.xio.benchmarks.compare.Variant;
import io.xio.benchmarks.compare.Workload;
import io.xio.engine.CallOptions;
import io.xio.engine.EngineStatistics;
import io.xio.engine.InboundRequest;
import io.xio.engine.InboundStream;
import io.xio.engine.Limits;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestHandler;
import io.xio.engine.RequestReuse;
import io.xio.engine.Session;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamLimits;
import io.xio.engine.StreamListener;
import io.xio.engine.XioEngine;
import io.xio.engine.XioStream;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
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
 * {@code servers=N} runs N server engines of one context each in the server JVM (a cluster of N on one machine);
 * {@code cluster} has the client call through a {@link ServiceClient} over every server's portal instead of its
 * own sessions, so the cost of picking an endpoint per call shows beside a plain session. {@code future=plain|recycled}
 * (plain by default): the client's calls take a new future each, or a recycled one
 * ({@link CallOptions#withRecycledFuture()}, back in the pool when the callback closes the response);
 * {@code reuse=never|after}: the server's service is registered with {@link RequestReuse#NEVER} (the default) or
 * {@link RequestReuse#AFTER_ANSWER}, its allocation-free way (the echo never touches a request after answering it,
 * and answers with a copy from pooled replies, since a view of the received segment is an object per call). Pipelined
 * calls keep one {@link Outbound} per slot, sent again once its call completed. {@code shared} gives each slot a
 * payload from {@link XioEngine#allocateShared} (over shm it then travels as a reference, read in place), which the
 * client writes before each call: the application's own copy, which the other cases do not pay.
 *
 * <p>A {@link Workload#isStream() stream} workload: the client opens one stream ({@link Session#openStream}); the
 * server's handler offers messages of the workload's size on it until {@link XioStream#offer} returns false and
 * resumes in {@link StreamListener#onReady()}, each message an {@link Outbound} from a pool (back in it when xio
 * releases it), all over the same direct buffer; the client's listener closes each message and keeps the workload's
 * demand asked for ({@link StreamLoop.Demand}). Transport {@code local} runs both ends in the client JVM, in one
 * engine of one context that connects to its own {@code local://} portal (the server JVM idles). {@code window=N}
 * (a number of bytes, or with a k or m suffix) sets both engines' stream window in bytes ({@link StreamLimits}),
 * {@code messages=N} in messages (1024 unless set). {@code held}: the producer watches how many messages it offered that the consumer has not
 * taken yet, through a {@link HeldProbe}, and the client reports the most. For a stream, {@code shared} takes that one buffer from
 * {@link XioEngine#allocateShared}, so that over shm each message travels as a reference into it rather than through
 * the ring (nobody writes or reads its bytes per message, as with the registered buffer otherwise).
 */
public final class XioPeer implements Peer
{
    private static final ByteBuffer NO_HEADER = ByteBuffer.allocate(0);
    private static final String RESOURCE = "bench";
    /** Between the server's URIs and the path of its {@link HeldProbe} in its address. */
    private static final String PROBE = "|probe=";

    @Override
    public Server serve(final String variantText, final Workload workload) throws Exception
    {
        final Variant variant = Variant.parse(variantText);
        if (transport(variant).equals("local"))
        {
            if (!workload.isStream())
            {
                throw new IllegalArgumentException("xio transport local runs streams only");
            }
            return idle(); // the client JVM runs both ends
        }
        final int contexts = variant.integer("ctx", 1);
        final int servers = variant.integer("servers", 1);
        final java.nio.file.Path store = transport(variant).equals("tls") ? BenchTls.create() : null;
        final HeldProbe probe = workload.isStream() && variant.has("held") ? HeldProbe.create() : null;
        final List<XioEngine> engines = new ArrayList<>();
        final List<String> uris = new ArrayList<>();
        for (int s = 0; s < servers; s++)
        {
            final XioEngine engine = engine("bench-server-" + s, variant, contexts, store);
            engines.add(engine);
            uris.addAll(serve(engine, variant, workload, contexts, probe));
        }
        final String served = probe == null ? String.join(",", uris) : String.join(",", uris) + PROBE + probe.path();
        final String address = store == null ? served : BenchTls.withStore(served, store);
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
                engines.forEach(XioEngine::close);
                if (store != null)
                {
                    BenchTls.delete(store);
                }
                if (probe != null)
                {
                    probe.close();
                }
            }
        };
    }

    private static Server idle()
    {
        return new Server()
        {
            @Override
            public String address()
            {
                return "none";
            }

            @Override
            public void close()
            {
            }
        };
    }

    /** Registers the benchmark's handler on {@code engine} and binds one portal per context; their URIs. */
    private static List<String> serve(final XioEngine engine, final Variant variant, final Workload workload,
        final int contexts, final HeldProbe probe)
    {
        if (workload.isStream())
        {
            engine.register(RESOURCE, new StreamingService(engine, workload, probe, variant.has("shared")));
            return bind(engine, variant, contexts);
        }
        final ByteBuffer[] ack = {ByteBuffer.allocateDirect(workload.responseBytes())};
        final boolean traced = variant.has("traceparent");
        final RequestReuse reuse = variant.oneOf("reuse", "never", "never", "after").equals("after") ?
            RequestReuse.AFTER_ANSWER : RequestReuse.NEVER;
        // An allocation-free service echoes a copy from pooled replies: a view of the received segment is an object
        final org.agrona.concurrent.ManyToManyConcurrentArrayQueue<EchoReply> replies =
            reuse == RequestReuse.AFTER_ANSWER ? new org.agrona.concurrent.ManyToManyConcurrentArrayQueue<>(4096) : null;
        engine.register(RESOURCE, request ->
        {
            final Message in = request.message();
            if (traced && in.metadata().get("traceparent") == null) // read, as a tracing interceptor does
            {
                throw new IllegalStateException("the request came without its traceparent");
            }
            if (workload.isEcho() && replies != null)
            {
                EchoReply reply = replies.poll();
                if (reply == null)
                {
                    reply = new EchoReply(workload.requestBytes(), replies);
                }
                reply.copyOf(in);
                in.close();
                request.respond(reply.answer.releaseAfterSend(reply)); // a release runs once: registered per answer
            }
            else if (workload.isEcho())
            {
                request.respond(Outbound.of(NO_HEADER, in.segment(0)).releaseAfterSend(in));
            }
            else
            {
                in.close();
                request.respond(Outbound.of(NO_HEADER, ack));
            }
        }, reuse);
        return bind(engine, variant, contexts);
    }

    /** One portal per context for the variant's transport; their URIs with the benchmark's resource. */
    private static List<String> bind(final XioEngine engine, final Variant variant, final int contexts)
    {
        final List<String> uris = new ArrayList<>();
        for (int i = 0; i < contexts; i++)
        {
            final String portal = switch (transport(variant))
            {
                case "shm" -> "shm://bench-" + UUID.randomUUID().toString().substring(0, 8);
                case "local" -> "local://bench-" + UUID.randomUUID().toString().substring(0, 8);
                default -> transport(variant) + "://127.0.0.1:0";
            };
            uris.add(engine.bind(portal, PortalOptions.DEFAULT.withContext(i)).uri().withResource(RESOURCE).toString());
        }
        return uris;
    }

    @Override
    public Measurement run(final String variantText, final String address, final Workload workload) throws Exception
    {
        final Variant variant = Variant.parse(variantText);
        final int contexts = variant.integer("ctx", 1);
        final String style = variant.oneOf("style", "context", "context", "caller");
        final CallOptions options = variant.oneOf("future", "plain", "plain", "recycled").equals("recycled") ?
            CallOptions.DEFAULT.withRecycledFuture() : CallOptions.DEFAULT;
        if (workload.isStream())
        {
            return runStream(variant, address, workload);
        }
        try (XioEngine engine = engine("bench-client", variant, contexts, BenchTls.store(address)))
        {
            final List<Session> sessions = new ArrayList<>();
            final ServiceClient cluster = variant.has("cluster") ? cluster(engine, BenchTls.address(address)) : null;
            if (cluster == null)
            {
                for (final String uri : BenchTls.address(address).split(","))
                {
                    sessions.add(engine.connect(uri));
                }
            }
            // one array for every call: Outbound keeps it as given and never changes it
            final ByteBuffer[] payload = {variant.has("shared") ? engine.allocateShared(workload.requestBytes())
                : engine.registerMemory(ByteBuffer.allocateDirect(workload.requestBytes()))};
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
                        () -> session.request(Outbound.of(NO_HEADER, payload).metadata(trace), options).get().close(),
                        framesPerWrite);
                }
                @SuppressWarnings("unchecked")
                final BiConsumer<Message, Throwable>[] callbacks = new BiConsumer[workload.outstanding()];
                // one per slot, sent again once its call completed (Outbound allows it: no object per call)
                final Outbound[] outbounds = new Outbound[workload.outstanding()];
                final boolean shared = variant.has("shared");
                final ByteBuffer[] slotData = new ByteBuffer[workload.outstanding()];
                final ByteBuffer source = shared ? ByteBuffer.allocateDirect(workload.requestBytes()) : null;
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
                    final Session session = cluster != null ? cluster.pick(0) :
                        sessions.get(slot.index() % sessions.size());
                    Outbound outbound = outbounds[slot.index()];
                    if (outbound == null)
                    {
                        final ByteBuffer[] data = shared ? new ByteBuffer[] {engine.allocateShared(source.capacity())}
                            : payload;
                        outbound = Outbound.of(NO_HEADER, data).metadata(trace);
                        outbounds[slot.index()] = outbound;
                        slotData[slot.index()] = data[0];
                    }
                    if (shared)
                    {
                        // the application writes its data where it is sent from: the one copy a transfer costs
                        final ByteBuffer data = slotData[slot.index()];
                        data.clear();
                        data.put(source.clear());
                        data.flip();
                    }
                    session.request(outbound, options).whenComplete(callback);
                };
                final int[] next = new int[1];
                // looked up once: a paced run hands every call over through the starter, and contexts() copies
                final List<io.xio.engine.Context> loops = engine.contexts();
                return CallLoop.pipelined(workload, call, task -> loops.get(next[0]++ % contexts).execute(task),
                    framesPerWrite);
            }
            finally
            {
                sessions.forEach(Session::close);
                if (cluster != null)
                {
                    cluster.close();
                }
            }
        }
    }

    /**
     * The client of a stream workload: opens the stream (over the server JVM's portal, or for {@code local} to a
     * portal of its own engine that serves it too), takes every message and measures.
     */
    private static Measurement runStream(final Variant variant, final String address, final Workload workload)
        throws Exception
    {
        final boolean local = transport(variant).equals("local");
        final String served = BenchTls.address(address);
        final int cut = served.indexOf(PROBE);
        try (XioEngine engine = engine(local ? "bench-local" : "bench-client", variant, 1, BenchTls.store(address));
             HeldProbe probe = !variant.has("held") ? null : local ? HeldProbe.inMemory() :
                 HeldProbe.open(Path.of(served.substring(cut + PROBE.length()))))
        {
            final String uri;
            if (local)
            {
                engine.register(RESOURCE, new StreamingService(engine, workload, probe, variant.has("shared")));
                uri = bind(engine, variant, 1).get(0);
            }
            else
            {
                uri = cut < 0 ? served : served.substring(0, cut);
            }
            try (Session session = engine.connect(uri))
            {
                final StreamLoop.Counter counter = new StreamLoop.Counter();
                final Consumer consumer = new Consumer(counter, new StreamLoop.Demand(workload.outstanding()), probe);
                final StreamCall call = session.openStream(Outbound.of(ByteBuffer.allocate(Workload.OPEN_BYTES)),
                    consumer);
                consumer.call = call;
                call.request(consumer.demand.initial());
                try
                {
                    return StreamLoop.measure(workload, counter, probe == null ? () -> -1 : probe::peak);
                }
                finally
                {
                    call.cancel();
                }
            }
        }
    }

    /** The server's side of the stream workload: every stream opened gets a {@link Producer}. */
    private static final class StreamingService implements RequestHandler
    {
        private final ByteBuffer payload;
        private final HeldProbe probe;

        StreamingService(final XioEngine engine, final Workload workload, final HeldProbe probe, final boolean shared)
        {
            // one buffer under every message: xio reads it and never changes it (positions stay)
            this.payload = shared ? engine.allocateShared(workload.responseBytes())
                : engine.registerMemory(ByteBuffer.allocateDirect(workload.responseBytes()));
            this.probe = probe;
        }

        @Override
        public void onRequest(final InboundRequest request)
        {
            request.message().close();
            request.fail(new IllegalStateException("this service takes streams only"));
        }

        @Override
        public void onStream(final InboundStream stream)
        {
            stream.open().close();
            final Producer producer = new Producer(stream, payload, probe);
            stream.start(producer);
            producer.pump();
        }
    }

    /**
     * Offers as long as the stream takes messages and goes on when it is ready again. Each message is an
     * {@link Outbound} from a pool, back in it when xio releases it ({@link Outbound#releaseAfterSend}), so a
     * producer allocates nothing per message once the pool holds what is in flight. The stream's context thread.
     */
    private static final class Producer implements StreamListener
    {
        private final XioStream stream;
        private final ByteBuffer payload;
        private final HeldProbe probe;
        /** Room for the largest window's messages in flight: one that finds the pool full is garbage. */
        private final ManyToManyConcurrentArrayQueue<Pooled> pool =
            new ManyToManyConcurrentArrayQueue<>(StreamLimits.MAX_WINDOW_MESSAGES + 1024);
        private long offered;

        Producer(final XioStream stream, final ByteBuffer payload, final HeldProbe probe)
        {
            this.stream = stream;
            this.payload = payload;
            this.probe = probe;
        }

        void pump()
        {
            while (!stream.isDone())
            {
                Pooled message = pool.poll();
                if (message == null)
                {
                    message = new Pooled(payload, pool);
                }
                if (!stream.offer(message.outbound.releaseAfterSend(message)))
                {
                    message.close(); // not taken: xio releases nothing
                    return;
                }
                offered++;
                if (probe != null)
                {
                    probe.offered(offered);
                }
            }
        }

        @Override
        public void onMessage(final Message message)
        {
            message.close();
        }

        @Override
        public void onReady()
        {
            pump();
        }

        @Override
        public void onError(final Throwable error)
        {
            // the client cancelled or went away: the run is over
        }
    }

    /** A message of the producer's pool: one {@link Outbound} over the shared payload, sent again and again. */
    private static final class Pooled implements AutoCloseable
    {
        private final Outbound outbound;
        private final java.util.Queue<Pooled> pool;

        Pooled(final ByteBuffer payload, final java.util.Queue<Pooled> pool)
        {
            this.outbound = Outbound.of(NO_HEADER, payload);
            this.pool = pool;
        }

        @Override
        public void close()
        {
            pool.offer(this);
        }
    }

    /** The client's listener: closes each message, counts it, and keeps the demand asked for. */
    private static final class Consumer implements StreamListener
    {
        private final StreamLoop.Counter counter;
        private final StreamLoop.Demand demand;
        private final HeldProbe probe;
        private volatile StreamCall call;
        private long taken;

        Consumer(final StreamLoop.Counter counter, final StreamLoop.Demand demand, final HeldProbe probe)
        {
            this.counter = counter;
            this.demand = demand;
            this.probe = probe;
        }

        @Override
        public void onMessage(final Message message)
        {
            message.close();
            taken++;
            counter.add(1);
            if (probe != null)
            {
                probe.taken(taken); // before asking for more: credit for more follows what it says
            }
            final int more = demand.taken();
            if (more > 0)
            {
                call.request(more);
            }
        }

        @Override
        public void onComplete(final Metadata trailers)
        {
            counter.failed(new IllegalStateException("the server completed the endless stream"));
        }

        @Override
        public void onError(final Throwable error)
        {
            counter.failed(error);
        }
    }

    /** A pooled echo answer: a copy of the request's one segment, back in its pool once written. */
    private static final class EchoReply implements AutoCloseable
    {
        private final ByteBuffer data;
        private final Outbound answer;
        private final java.util.Queue<EchoReply> pool;

        EchoReply(final int bytes, final java.util.Queue<EchoReply> pool)
        {
            this.data = ByteBuffer.allocateDirect(bytes);
            this.answer = Outbound.of(NO_HEADER, data);
            this.pool = pool;
        }

        void copyOf(final Message in)
        {
            final int length = in.segmentLength(0);
            in.segmentBuffer(0).getBytes(in.segmentOffset(0), data, 0, length);
            data.clear().limit(length);
        }

        @Override
        public void close()
        {
            pool.offer(this);
        }
    }

    /** A service client over every portal of {@code address}, one endpoint each, once all their sessions are up. */
    private static ServiceClient cluster(final XioEngine engine, final String address) throws InterruptedException
    {
        final List<Endpoint> endpoints = new ArrayList<>();
        for (final String uri : address.split(","))
        {
            endpoints.add(Endpoint.of(io.xio.engine.XioUri.parse(uri)));
        }
        final ServiceClient client = ServiceClient.builder(engine, StaticEndpointResolver.of(RESOURCE, endpoints),
            RESOURCE).build();
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (client.endpoints().stream().filter(e -> e.state() == EndpointStatus.State.ACTIVE).count() <
            endpoints.size())
        {
            if (System.nanoTime() > deadline)
            {
                client.close();
                throw new IllegalStateException("the cluster's sessions did not open: " + client.endpoints());
            }
            Thread.sleep(10);
        }
        return client;
    }

    /** A number of bytes, with an optional k (KiB) or m (MiB) suffix. */
    static int bytes(final String text)
    {
        final String lower = text.toLowerCase(java.util.Locale.ROOT);
        final int scale = lower.endsWith("m") ? Workload.MIB : lower.endsWith("k") ? Workload.KIB : 1;
        return Math.multiplyExact(Integer.parseInt(scale == 1 ? lower : lower.substring(0, lower.length() - 1)),
            scale);
    }

    private static String transport(final Variant variant)
    {
        final List<String> named = new ArrayList<>();
        for (final String scheme : new String[] {"tcp", "tls", "shm", "local"})
        {
            if (variant.has(scheme))
            {
                named.add(scheme);
            }
        }
        if (named.size() != 1)
        {
            throw new IllegalArgumentException("xio variant needs exactly one transport, tcp, tls, shm or local");
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
            default -> XioEngine.DEFAULT_BUSY_POLL;
        };
        final XioEngine.Builder builder = XioEngine.builder().name(name).contexts(contexts).busyPoll(busyPoll);
        if (variant.has("window"))
        {
            final StreamLimits.Builder streams = StreamLimits.builder().windowBytes(bytes(variant.get("window", "")));
            if (variant.has("messages"))
            {
                streams.windowMessages(Integer.parseInt(variant.get("messages", "")));
            }
            builder.limits(Limits.DEFAULT.withStreams(streams.build()));
        }
        if (store != null)
        {
            builder.tls(io.xio.engine.TlsOptions.of(BenchTls.context(store)));
        }
        return builder.build();
    }
}
