package io.xio.sample;

import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Locale;

/**
 * The plain-engine demo: a server portal and a client in one JVM exchanging requests over TCP on 127.0.0.1,
 * printing round-trip latency percentiles (one request outstanding) and throughput (64 outstanding) for
 * 64-byte and 4 KiB requests. Run it with {@code ./mvnw -q -pl sample-app -am compile -Prun
 * -Dexec.mainClass=io.xio.sample.EngineDemo}.
 */
public final class EngineDemo
{
    private static final int WARMUP = 20_000;
    private static final int LATENCY_SAMPLES = 100_000;
    private static final Duration THROUGHPUT_TIME = Duration.ofSeconds(3);
    private static final int OUTSTANDING = 64;

    private EngineDemo()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (XioEngine server = XioEngine.builder().name("demo-server").contexts(1).build();
             XioEngine client = XioEngine.builder().name("demo-client").contexts(1).build())
        {
            // Echo the header and data back without copying; the request is released once the answer is written.
            server.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            final Portal portal = server.bind("tcp://127.0.0.1:0");
            final String uri = portal.uri().withResource("echo").toString();
            System.out.printf("xio engine demo: server portal %s, client session %s%n", portal.uri(), uri);
            try (Session session = client.connect(uri))
            {
                System.out.printf("%-8s %10s %10s %10s %10s %10s %14s%n",
                    "payload", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us", "calls/s (64)");
                for (final int size : new int[] {64, 4096})
                {
                    final ByteBuffer payload = client.registerMemory(ByteBuffer.allocateDirect(size));
                    final Histogram histogram = latency(session, payload);
                    final double rate = throughput(session, payload);
                    System.out.printf(Locale.ROOT, "%-8s %10.1f %10.1f %10.1f %10.1f %10.1f %,14.0f%n",
                        size + " B", us(histogram.getValueAtPercentile(50)), us(histogram.getValueAtPercentile(90)),
                        us(histogram.getValueAtPercentile(99)), us(histogram.getValueAtPercentile(99.9)),
                        us(histogram.getMaxValue()), rate);
                }
            }
        }
    }

    private static Histogram latency(final Session session, final ByteBuffer payload) throws Exception
    {
        final Histogram histogram = new Histogram(3);
        for (int i = 0; i < WARMUP + LATENCY_SAMPLES; i++)
        {
            final long start = System.nanoTime();
            try (Message reply = session.request(Outbound.of(payload)).get())
            {
                if (reply.headerLength() != payload.remaining())
                {
                    throw new IllegalStateException("echo returned " + reply.headerLength() + " bytes");
                }
            }
            if (i >= WARMUP)
            {
                histogram.recordValue(System.nanoTime() - start);
            }
        }
        return histogram;
    }

    private static double throughput(final Session session, final ByteBuffer payload) throws Exception
    {
        final ArrayDeque<XioFuture<Message>> window = new ArrayDeque<>(OUTSTANDING);
        final CallOptions options = CallOptions.DEFAULT.withWaitWhenFull(true);
        long completed = 0;
        final long start = System.nanoTime();
        final long end = start + THROUGHPUT_TIME.toNanos();
        while (System.nanoTime() < end)
        {
            while (window.size() < OUTSTANDING)
            {
                window.add(session.request(Outbound.of(payload), options));
            }
            window.poll().get().close();
            completed++;
        }
        while (!window.isEmpty())
        {
            window.poll().get().close();
            completed++;
        }
        return completed / ((System.nanoTime() - start) / 1e9);
    }

    private static double us(final long nanos)
    {
        return nanos / 1000.0;
    }
}
