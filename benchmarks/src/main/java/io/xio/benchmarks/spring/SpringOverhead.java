package io.xio.benchmarks.spring;

import io.xio.benchmarks.Repetitions;
import io.xio.benchmarks.spring.client.ClientApplication;
import io.xio.benchmarks.spring.client.EchoClient;
import io.xio.benchmarks.spring.server.ServerApplication;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import io.xio.spring.service.XioServiceExporter;
import org.HdrHistogram.Histogram;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/**
 * The cost of the Spring layer: a Spring client calling a Spring service over tcp on 127.0.0.1, next to the
 * raw engine in the same run against the same server engine. Byte arrays travel as data segments, text
 * through the codec (Smile); a second Spring client times every call with Micrometer, to show what metrics
 * cost. One request outstanding for latency, 64 for calls per second; three
 * repetitions, medians reported with the ratio to the engine.
 *
 * <p>Run: {@code ./mvnw -q -pl benchmarks -am test-compile -Prun
 * -Dbenchmark.main=io.xio.benchmarks.spring.SpringOverhead}
 */
public final class SpringOverhead
{
    private static final int WARMUP = 20_000;
    private static final int SAMPLES = 50_000;
    private static final int THROUGHPUT_CALLS = 100_000;
    private static final int REPETITIONS = 3;

    private SpringOverhead()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (ConfigurableApplicationContext server = new SpringApplicationBuilder(ServerApplication.class)
                 .web(WebApplicationType.NONE).properties("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0",
                     "spring.main.banner-mode=off", "logging.level.root=warn").run())
        {
            final XioEngine serverEngine = server.getBean(XioEngine.class);
            serverEngine.register("raw", request ->
                request.respond(Outbound.of(request.message().header(), segments(request.message()))
                    .releaseAfterSend(request.message())));
            final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
            final String[] clientProperties = {"xio.contexts=1",
                "xio.clients.echo.uri=tcp://127.0.0.1:" + port + "/echo", "spring.main.banner-mode=off",
                "logging.level.root=warn"};
            try (ConfigurableApplicationContext client = new SpringApplicationBuilder(ClientApplication.class)
                     .web(WebApplicationType.NONE).properties(clientProperties).run();
                 ConfigurableApplicationContext metered = new SpringApplicationBuilder(ClientApplication.class,
                     MeteredClient.class).web(WebApplicationType.NONE).properties(clientProperties).run();
                 XioEngine rawEngine = XioEngine.builder().name("raw-client").contexts(1).build();
                 Session raw = rawEngine.connect("tcp://127.0.0.1:" + port + "/raw"))
            {
                final EchoClient echo = client.getBean(EchoClient.class);
                final EchoClient timed = metered.getBean(EchoClient.class);
                System.out.printf("%-22s %10s %10s %14s %12s%n", "case", "p50 us", "p99 us", "calls/s (64)",
                    "p50 / engine");
                for (final int size : new int[] {64, 4096})
                {
                    final byte[] bytes = new byte[size];
                    Arrays.fill(bytes, (byte)'x');
                    final String text = new String(bytes, java.nio.charset.StandardCharsets.US_ASCII);
                    final ByteBuffer direct = ByteBuffer.allocateDirect(size).put(bytes).flip();
                    final double[][] engine = new double[REPETITIONS][];
                    final double[][] springBytes = new double[REPETITIONS][];
                    final double[][] springText = new double[REPETITIONS][];
                    final double[][] springTimed = new double[REPETITIONS][];
                    for (int rep = 0; rep < REPETITIONS; rep++)
                    {
                        engine[rep] = measure(() -> rawCall(raw, direct), () -> rawThroughput(raw, direct));
                        springBytes[rep] = measure(() -> echo.bytes(bytes).length, () -> springThroughput(echo, bytes));
                        springText[rep] = measure(() -> echo.text(text).length(), () -> springThroughput(echo, bytes));
                        springTimed[rep] = measure(() -> timed.bytes(bytes).length, () -> springThroughput(timed, bytes));
                    }
                    final double engineP50 = Repetitions.median(engine, 0);
                    print("engine " + size + " B", engine, engineP50);
                    print("spring byte[] " + size + " B", springBytes, engineP50);
                    print("spring String " + size + " B", springText, engineP50);
                    print("spring byte[] timed " + size + " B", springTimed, engineP50);
                    final io.micrometer.core.instrument.MeterRegistry meters =
                        metered.getBean(io.micrometer.core.instrument.MeterRegistry.class);
                    if (meters.find("xio.client.requests").timers().isEmpty())
                    {
                        throw new IllegalStateException("the timed client recorded nothing: the comparison is void");
                    }
                    System.out.printf(Locale.ROOT, "%-22s %10.2f %10.2f %14.2f%n", "  timed / untimed",
                        Repetitions.median(springTimed, 0) / Repetitions.median(springBytes, 0),
                        Repetitions.median(springTimed, 1) / Repetitions.median(springBytes, 1),
                        Repetitions.median(springTimed, 2) / Repetitions.median(springBytes, 2));
                }
            }
        }
    }

    /** The client again, with a Micrometer registry: every call is timed (xio.client.requests). */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class MeteredClient
    {
        @org.springframework.context.annotation.Bean
        io.micrometer.core.instrument.MeterRegistry meterRegistry()
        {
            return new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        }
    }

    private static ByteBuffer[] segments(final Message message)
    {
        final ByteBuffer[] segments = new ByteBuffer[message.segmentCount()];
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = message.segment(i);
        }
        return segments;
    }

    private static int rawCall(final Session session, final ByteBuffer payload)
    {
        try (Message reply = session.request(Outbound.of(ByteBuffer.allocate(0), payload)).join())
        {
            return reply.segmentLength(0);
        }
    }

    private static double rawThroughput(final Session session, final ByteBuffer payload)
    {
        final ArrayDeque<XioFuture<Message>> window = new ArrayDeque<>();
        final long start = System.nanoTime();
        for (int i = 0; i < THROUGHPUT_CALLS; i++)
        {
            if (window.size() == 64)
            {
                window.poll().join().close();
            }
            window.add(session.request(Outbound.of(ByteBuffer.allocate(0), payload)));
        }
        window.forEach(f -> f.join().close());
        return THROUGHPUT_CALLS / ((System.nanoTime() - start) / 1e9);
    }

    private static double springThroughput(final EchoClient echo, final byte[] payload)
    {
        final ArrayDeque<CompletableFuture<byte[]>> window = new ArrayDeque<>();
        final long start = System.nanoTime();
        for (int i = 0; i < THROUGHPUT_CALLS; i++)
        {
            if (window.size() == 64)
            {
                window.poll().join();
            }
            window.add(echo.bytesAsync(payload));
        }
        window.forEach(CompletableFuture::join);
        return THROUGHPUT_CALLS / ((System.nanoTime() - start) / 1e9);
    }

    /** Returns {p50 µs, p99 µs, calls/s}. */
    private static double[] measure(final IntSupplier call, final java.util.function.DoubleSupplier throughput)
    {
        final Histogram histogram = new Histogram(3);
        for (int i = 0; i < WARMUP + SAMPLES; i++)
        {
            final long start = System.nanoTime();
            call.getAsInt();
            if (i >= WARMUP)
            {
                histogram.recordValue(System.nanoTime() - start);
            }
        }
        return new double[] {histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
            throughput.getAsDouble()};
    }

    private static void print(final String label, final double[][] reps, final double engineP50)
    {
        final double p50 = Repetitions.median(reps, 0);
        System.out.printf(Locale.ROOT, "%-22s %10.1f %10.1f %,14.0f %12.2f%n", label, p50, Repetitions.median(reps, 1),
            Repetitions.median(reps, 2), p50 / engineP50);
    }
}
