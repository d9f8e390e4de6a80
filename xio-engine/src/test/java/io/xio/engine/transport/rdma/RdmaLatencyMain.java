package io.xio.engine.transport.rdma;

import io.xio.engine.Context;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Request/response round-trip latency over {@code rdma://} (two engines in one JVM, one outstanding call,
 * busy-polling contexts), for the Soft-RoCE benchmark in {@code integration-tests/rdma/run-benchmark.sh}:
 * once with the client's context on its own thread, once run by the calling thread. Prints one line per case
 * and payload: {@code <case> <bytes> p50 <us> p99 <us>}. Args: samples, warm-up.
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
                .busyPoll(Duration.ofMillis(1)).build())
        {
            server.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            final Portal portal = server.bind("rdma://" + RdmaTestAddress.ip() + ":0");
            final String uri = portal.uri().withResource("echo").toString();
            // threaded: the caller hands each request to the client's context thread and waits for it
            try (XioEngine client = XioEngine.builder().name("bench-client").contexts(1)
                    .busyPoll(Duration.ofMillis(1)).build();
                 Session session = client.connect(uri))
            {
                measure("xio-rdma", session, null, samples, warmup);
            }
            // manual: the caller runs the client's context itself, so no thread hand-off on that side
            try (XioEngine client = XioEngine.builder().name("bench-manual").contexts(1).manualContexts(true).build())
            {
                final Context context = client.contexts().get(0);
                final CompletableFuture<Session> opening = client.openSession(uri, SessionOptions.DEFAULT);
                while (!opening.isDone())
                {
                    context.doWork();
                }
                try (Session session = opening.get())
                {
                    measure("xio-rdma-manual", session, context, samples, warmup);
                }
            }
        }
    }

    private static void measure(final String name, final Session session, final Context driver, final int samples,
        final int warmup) throws Exception
    {
        for (final int size : new int[] {64, 4096})
        {
            final ByteBuffer payload = ByteBuffer.allocateDirect(size);
            final long[] nanos = new long[samples];
            for (int i = -warmup; i < samples; i++)
            {
                final long start = System.nanoTime();
                final XioFuture<Message> future = session.request(Outbound.of(payload.duplicate()));
                while (driver != null && !future.isDone())
                {
                    driver.doWork();
                }
                try (Message reply = future.get(10, TimeUnit.SECONDS))
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
            System.out.printf("%s %d p50 %.1f p99 %.1f%n", name, size, nanos[samples / 2] / 1e3,
                nanos[(int)(samples * 0.99)] / 1e3);
        }
    }
}
