package io.xio.benchmarks;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Round trip of a 32-byte request and response between two JVMs, over shm and over tcp, with the contexts
 * busy-polling and parked, printed side by side from one run. The server runs in a child JVM pinned to CPU 0,
 * this client on CPU 1 (when {@code taskset} exists). Two client styles: "context" issues each request from
 * the completion of the previous one on the client's context thread (no thread hand-off, the async style);
 * "caller" blocks an application thread on each future (one hand-off each way). Three repetitions; the
 * table shows the median of each figure and, in brackets, the spread.
 *
 * <p>Run: {@code ./mvnw -q -pl benchmarks -am test-compile -Prun}; a filter such as
 * {@code -Dbenchmark.args="shm busy"} runs only the matching rows.
 */
public final class TransportLatency
{
    private static final int PAYLOAD = 32;
    private static final int REPETITIONS = 3;
    private static final Duration SPIN = Duration.ofSeconds(1);

    private record Case(String transport, boolean busy, boolean onContext)
    {
        String label()
        {
            return String.format("%-4s %-7s %-8s", transport, busy ? "busy" : "parked", onContext ? "context" : "caller");
        }

        int samples()
        {
            return busy ? 100_000 : 20_000;
        }
    }

    private TransportLatency()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && args[0].equals("server"))
        {
            serve(args[1], Long.parseLong(args[2]));
            return;
        }
        final boolean pinned = Pinning.pin(ProcessHandle.current().pid(), 1);
        final List<Case> cases = new ArrayList<>();
        for (final String transport : List.of("shm", "tcp"))
        {
            for (final boolean busy : List.of(true, false))
            {
                for (final boolean onContext : List.of(true, false))
                {
                    final Case c = new Case(transport, busy, onContext);
                    if (args.length == 0 || c.label().replaceAll(" +", " ").contains(args[0]))
                    {
                        cases.add(c);
                    }
                }
            }
        }
        final double[][][] results = new double[cases.size()][REPETITIONS][];
        for (int rep = 0; rep < REPETITIONS; rep++)
        {
            for (int c = 0; c < cases.size(); c++)
            {
                results[c][rep] = run(cases.get(c), pinned);
                System.err.printf("rep %d %s done%n", rep + 1, cases.get(c).label());
            }
        }
        System.out.printf("%n32 B request/response round trip, two JVMs%s, %d repetitions; median [min-max] in microseconds%n",
            pinned ? " (server on CPU 0, client on CPU 1)" : " (unpinned: no taskset)", REPETITIONS);
        System.out.printf("%-21s %-22s %-22s %-22s%n", "transport mode client", "p50", "p99", "p99.9");
        for (int c = 0; c < cases.size(); c++)
        {
            System.out.printf("%-21s %-22s %-22s %-22s%n", cases.get(c).label(), cell(results[c], 0),
                cell(results[c], 1), cell(results[c], 2));
        }
    }

    private static String cell(final double[][] reps, final int index)
    {
        final double[] values = Repetitions.sorted(reps, index);
        return String.format(Locale.ROOT, "%.2f [%.2f-%.2f]", values[values.length / 2], values[0],
            values[values.length - 1]);
    }

    private static double[] run(final Case c, final boolean pin) throws Exception
    {
        final String name = "bench-" + UUID.randomUUID().toString().substring(0, 8);
        final String portal = c.transport().equals("shm") ? "shm://" + name : "tcp://127.0.0.1:0";
        final long busyNanos = c.busy() ? SPIN.toNanos() : 0;
        final List<String> command = new ArrayList<>();
        if (pin)
        {
            command.addAll(List.of("taskset", "-c", "0"));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
            "-cp", System.getProperty("java.class.path"), TransportLatency.class.getName(), "server", portal,
            String.valueOf(busyNanos)));
        final Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (XioEngine client = XioEngine.builder().name("bench-client").contexts(1)
            .busyPoll(Duration.ofNanos(busyNanos)).build())
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8));
            final String uri = out.readLine();
            if (uri == null)
            {
                throw new IOException("benchmark server did not start");
            }
            try (Session session = client.connect(uri + "/echo"))
            {
                final ByteBuffer payload = client.registerMemory(ByteBuffer.allocateDirect(PAYLOAD));
                final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                measure(session, client, payload, c, histogram, 20_000); // warm-up
                histogram.reset();
                measure(session, client, payload, c, histogram, c.samples());
                return new double[] {
                    histogram.getValueAtPercentile(50) / 1000.0,
                    histogram.getValueAtPercentile(99) / 1000.0,
                    histogram.getValueAtPercentile(99.9) / 1000.0};
            }
        }
        finally
        {
            server.getOutputStream().close();
            if (!server.waitFor(10, TimeUnit.SECONDS))
            {
                server.destroyForcibly();
            }
        }
    }

    private static void measure(final Session session, final XioEngine client, final ByteBuffer payload,
        final Case c, final Histogram histogram, final int samples) throws Exception
    {
        if (!c.onContext())
        {
            for (int i = 0; i < samples; i++)
            {
                final long start = System.nanoTime();
                session.request(Outbound.of(payload)).get().close();
                histogram.recordValue(System.nanoTime() - start);
            }
            return;
        }
        final CompletableFuture<Void> done = new CompletableFuture<>();
        client.contexts().get(0).execute(new Runnable()
        {
            private int remaining = samples;
            private long start;

            @Override
            public void run()
            {
                start = System.nanoTime();
                final XioFuture<Message> reply = session.request(Outbound.of(payload));
                reply.whenComplete((message, ex) ->
                {
                    if (ex != null)
                    {
                        done.completeExceptionally(ex);
                        return;
                    }
                    histogram.recordValue(System.nanoTime() - start);
                    message.close();
                    if (--remaining == 0)
                    {
                        done.complete(null);
                    }
                    else
                    {
                        run(); // completes on the context thread: the next request leaves from there too
                    }
                });
            }
        });
        done.get(5, TimeUnit.MINUTES);
    }

    private static void serve(final String portal, final long busyNanos) throws Exception
    {
        try (XioEngine server = XioEngine.builder().name("bench-server").contexts(1)
            .busyPoll(Duration.ofNanos(busyNanos)).build())
        {
            server.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            System.out.println(server.bind(portal).uri());
            System.out.flush();
            while (System.in.read() >= 0)
            {
                Thread.onSpinWait(); // runs until the harness closes our stdin
            }
        }
    }
}
