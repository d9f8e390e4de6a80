package io.xio.benchmarks.jmh;

import io.xio.engine.CallOptions;
import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestReuse;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One 64-byte request and its 64-byte echo through the whole engine, server and client engines in this JVM,
 * over {@code local}, {@code tcp} (loopback) or {@code shm}, for the allocation profile: with {@code -prof gc},
 * {@code gc.alloc.rate.norm} is the bytes allocated per round trip by every thread, both sides together.
 *
 * <ul>
 *   <li>{@code future}: the everyday API, a new {@link Outbound} and an {@link io.xio.engine.XioFuture} per call,
 *       the server handler answering with a new {@code Outbound} echoing the received header view.</li>
 *   <li>{@code listener}: the allocation-free API: one reused {@code Outbound}, a {@link ResponseListener}, and a
 *       service registered with {@link RequestReuse#AFTER_ANSWER} that answers from a small pool of reply
 *       buffers, reading the request in place.</li>
 * </ul>
 *
 * <p>{@code metadata=traceparent} adds one W3C {@code traceparent} entry (55 characters) to every request, and the
 * server reads it, as a tracing interceptor would: what carrying a trace context costs. The sender's entry is made
 * once and reused (encoding it allocates nothing); the receiver decodes it on every call.
 *
 * <p>Run: {@code ./mvnw -q -pl benchmarks -am test-compile -Prun -Dbenchmark.main=io.xio.benchmarks.Jmh
 * -Dbenchmark.args="RoundTrip -prof gc"} (add {@code -p transport=local} or {@code -p api=listener} to narrow).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RoundTripBenchmark
{
    private static final int SIZE = 64;

    @Param({"local", "tcp", "shm"})
    public String transport;

    @Param({"future", "listener"})
    public String api;

    @Param({"none", "traceparent"})
    public String metadata;

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private Metadata sent;

    private XioEngine server;
    private XioEngine client;
    private Session session;
    private final ByteBuffer payload = ByteBuffer.allocateDirect(SIZE);
    private Outbound request;
    private final Reply reply = new Reply();

    @Setup
    public void start()
    {
        server = XioEngine.builder().name("jmh-server").contexts(1).busyPoll(Duration.ofMillis(1)).build();
        client = XioEngine.builder().name("jmh-client").contexts(1).busyPoll(Duration.ofMillis(1)).build();
        final boolean traced = "traceparent".equals(metadata);
        sent = traced ? new Metadata().add("traceparent", TRACEPARENT) : null;
        if ("listener".equals(api))
        {
            server.register("echo", new PooledEcho(traced), RequestReuse.AFTER_ANSWER);
        }
        else
        {
            server.register("echo", call ->
            {
                if (traced && call.metadata().get("traceparent") == null)
                {
                    throw new IllegalStateException("the trace context did not arrive");
                }
                call.respond(Outbound.of(call.message().header()).releaseAfterSend(call.message()));
            });
        }
        final String name = "jmh-" + UUID.randomUUID();
        final String portal = switch (transport)
        {
            case "tcp" -> server.bind("tcp://127.0.0.1:0").uri().toString();
            case "local", "shm" -> server.bind(transport + "://" + name).uri().toString();
            default -> throw new IllegalArgumentException("transport must be local, tcp or shm: " + transport);
        };
        session = client.connect(portal + "/echo");
        client.registerMemory(payload);
        request = Outbound.of(payload).metadata(sent);
    }

    @TearDown
    public void stop()
    {
        session.close();
        client.close();
        server.close();
    }

    @Benchmark
    public int roundTrip()
    {
        if ("listener".equals(api))
        {
            reply.done = false;
            reply.waiter = Thread.currentThread();
            session.request(request, CallOptions.DEFAULT, reply);
            while (!reply.done)
            {
                LockSupport.park(); // as join() does: a spinning caller would starve the two cores' contexts
            }
            return reply.length;
        }
        try (Message answer = session.request(Outbound.of(payload).metadata(sent)).join())
        {
            return answer.headerLength();
        }
    }

    /** The caller's side of the allocation-free path: told on the client's context thread. */
    static final class Reply implements ResponseListener
    {
        volatile boolean done;
        volatile Thread waiter;
        int length;

        @Override
        public void onResponse(final long requestId, final Message response)
        {
            length = response.headerLength();
            done = true;
            LockSupport.unpark(waiter);
        }

        @Override
        public void onFailure(final long requestId, final Throwable cause)
        {
            length = -1;
            done = true;
            LockSupport.unpark(waiter);
        }
    }

    /**
     * An echo that allocates nothing: copies the request header into a pooled direct buffer, closes the request,
     * answers; the buffer comes back when xio has written the answer. Runs on the server's context thread, where
     * the write completion also runs, so the pool needs no locks.
     */
    static final class PooledEcho implements io.xio.engine.RequestHandler
    {
        private final java.util.ArrayDeque<Slot> idle = new java.util.ArrayDeque<>();
        private final boolean traced;

        PooledEcho(final boolean traced)
        {
            this.traced = traced;
        }

        @Override
        public void onRequest(final InboundRequest call)
        {
            Slot slot = idle.pollFirst();
            if (slot == null)
            {
                slot = new Slot();
            }
            final Message message = call.message();
            if (traced && message.metadata().get("traceparent") == null)
            {
                throw new IllegalStateException("the trace context did not arrive");
            }
            final int length = message.headerLength();
            message.buffer().getBytes(message.headerOffset(), slot.buffer, 0, length);
            message.close();
            slot.buffer.clear().limit(length);
            call.respond(slot.outbound.releaseAfterSend(slot));
        }

        final class Slot implements AutoCloseable
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
            final Outbound outbound = Outbound.of(buffer);

            @Override
            public void close()
            {
                idle.addFirst(this);
            }
        }
    }
}
