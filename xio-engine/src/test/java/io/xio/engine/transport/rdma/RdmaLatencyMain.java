package io.xio.engine.transport.rdma;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Request/response round-trip latency over {@code rdma://} (two engines in one JVM, one outstanding call,
 * busy-polling contexts), for the Soft-RoCE benchmark in {@code integration-tests/rdma/run-benchmark.sh}.
 * Prints one line per payload: {@code xio-rdma <bytes> p50 <us> p99 <us>}. Args: samples, warm-up.
 */
public final class RdmaLatencyMain
{
    private RdmaLatencyMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int samples = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        final int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        try (XioEngine server = XioEngine.builder().name("bench-server").contexts(1)
                .busyPoll(Duration.ofMillis(1)).build();
             XioEngine client = XioEngine.builder().name("bench-client").contexts(1)
                .busyPoll(Duration.ofMillis(1)).build())
        {
            server.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            final Portal portal = server.bind("rdma://" + RdmaTestAddress.ip() + ":0");
            try (Session session = client.connect(portal.uri().withResource("echo").toString()))
            {
                for (final int size : new int[] {64, 4096})
                {
                    final ByteBuffer payload = ByteBuffer.allocateDirect(size);
                    final long[] nanos = new long[samples];
                    for (int i = -warmup; i < samples; i++)
                    {
                        final long start = System.nanoTime();
                        try (Message reply = session.request(Outbound.of(payload.duplicate())).get(10, TimeUnit.SECONDS))
                        {
                            if (reply.header().remaining() != size)
                            {
                                throw new IllegalStateException("echo of " + reply.header().remaining() + " bytes");
                            }
                        }
                        if (i >= 0)
                        {
                            nanos[i] = System.nanoTime() - start;
                        }
                    }
                    Arrays.sort(nanos);
                    System.out.printf("xio-rdma %d p50 %.1f p99 %.1f%n", size, nanos[samples / 2] / 1e3,
                        nanos[(int)(samples * 0.99)] / 1e3);
                }
            }
        }
    }
}
