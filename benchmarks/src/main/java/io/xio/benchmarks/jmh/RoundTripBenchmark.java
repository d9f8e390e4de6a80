package io.xio.benchmarks.jmh;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One 64-byte request/response through the whole engine over the in-JVM transport: the hot path without a
 * socket, for the allocation profile ({@code -prof gc}: {@code gc.alloc.rate.norm} is bytes per round trip,
 * both sides together).
 *
 * <p>Run: {@code ./mvnw -q -pl benchmarks -am compile exec:exec -Dbenchmark.main=io.xio.benchmarks.Jmh
 * -Dbenchmark.args="LocalRoundTrip -prof gc"}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LocalRoundTripBenchmark
{
    private XioEngine server;
    private XioEngine client;
    private Session session;
    private final ByteBuffer payload = ByteBuffer.allocateDirect(64);

    @Setup
    public void start()
    {
        server = XioEngine.builder().name("jmh-server").contexts(1).busyPoll(Duration.ofMillis(1)).build();
        client = XioEngine.builder().name("jmh-client").contexts(1).busyPoll(Duration.ofMillis(1)).build();
        server.register("echo", request ->
            request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
        final String name = "jmh-" + UUID.randomUUID();
        server.bind("local://" + name);
        session = client.connect("local://" + name + "/echo");
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
        try (Message reply = session.request(Outbound.of(payload)).join())
        {
            return reply.headerLength();
        }
    }
}
