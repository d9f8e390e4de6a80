package io.xio.benchmarks;

import io.xio.engine.Context;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A light, steady load: 1,000 calls/s of 32 B over tcp on loopback, 1 outstanding, between two JVMs, for the idle
 * modes "spin" (busy-poll 1 s), "fixed" (the old default: spin 50 µs then park) and "adaptive" (the default).
 * An application thread paces the calls on a fixed schedule (parking between them, as a real caller does) and
 * hands each to the client's context; the latency runs from that hand-off to the reply on the context thread, so
 * both sides' wake-ups count; "send" columns run from the request leaving the context, leaving out the client's
 * wake-up for the hand-off (on a 2-core machine a spinning client context shares its core with the pacing thread,
 * which delays that hand-off in the spin case). Times in microseconds; CPU is each side's context thread's share of
 * a core over the measured calls.
 *
 * <p>Run: {@code ./mvnw -q -pl benchmarks -am test-compile -Prun -Dbenchmark.main=io.xio.benchmarks.PacedLatency}
 * ({@code -Dbenchmark.args="5000 1000"}: calls measured and calls per second).
 */
public final class PacedLatency
{
    private static final int PAYLOAD = 32;

    private PacedLatency()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && args[0].equals("server"))
        {
            serve(args[1]);
            return;
        }
        final int calls = args.length > 0 && !args[0].isBlank() ? Integer.parseInt(args[0].trim().split(" +")[0]) :
            5_000;
        final int rate = args.length > 0 && args[0].trim().split(" +").length > 1 ?
            Integer.parseInt(args[0].trim().split(" +")[1]) : 1_000;
        final boolean pinned = !System.getProperty("benchmark.pin", "true").equals("false") &&
            Pinning.pin(ProcessHandle.current().pid(), 1);
        System.out.printf("%n%d calls/s, 1 outstanding, tcp loopback, 32 B, %d calls%s%n", rate, calls,
            pinned ? " (server on CPU 0, client on CPU 1)" : "");
        System.out.printf("%-9s %9s %9s %9s %9s %9s %12s %12s%n", "mode", "p50", "p90", "p99", "send p50",
            "send p90", "client CPU", "server CPU");
        for (final String mode : List.of("spin", "fixed", "adaptive"))
        {
            run(mode, calls, rate, pinned);
        }
    }

    private static XioEngine.Builder engine(final String name, final String mode)
    {
        final XioEngine.Builder builder = XioEngine.builder().name(name).contexts(1);
        return switch (mode)
        {
            case "spin" -> builder.busyPoll(Duration.ofSeconds(1));
            case "fixed" -> builder.adaptivePolling(false);
            default -> builder;
        };
    }

    private static void run(final String mode, final int calls, final int rate, final boolean pin) throws Exception
    {
        final List<String> command = new ArrayList<>();
        if (pin)
        {
            command.addAll(List.of("taskset", "-c", "0"));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
            "-cp", System.getProperty("java.class.path"), PacedLatency.class.getName(), "server", mode));
        final Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (XioEngine client = engine("paced-client", mode).build())
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8));
            final OutputStream in = server.getOutputStream();
            final String uri = out.readLine();
            if (uri == null)
            {
                throw new IOException("server did not start");
            }
            try (Session session = client.connect(uri + "/echo"))
            {
                final ByteBuffer payload = client.registerMemory(ByteBuffer.allocateDirect(PAYLOAD));
                final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                final Caller caller = new Caller(session, payload, histogram);
                final Context context = client.contexts().get(0);
                pace(caller, context, rate, rate); // a second of warm-up
                histogram.reset();
                caller.fromSend.reset();
                in.write('s');
                in.write('\n');
                in.flush();
                final double serverStart = Double.parseDouble(out.readLine());
                final long cpuStart = contextCpu("paced-client");
                final long start = System.nanoTime();
                pace(caller, context, calls, rate);
                final double clientCpu = (contextCpu("paced-client") - cpuStart) / (double)(System.nanoTime() - start);
                in.write('e');
                in.write('\n');
                in.flush();
                final double serverCpu = Double.parseDouble(out.readLine()) - serverStart;
                System.out.printf(Locale.ROOT, "%-9s %9.2f %9.2f %9.2f %9.2f %9.2f %11.1f%% %11.1f%%%n", mode,
                    histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(90) / 1000.0,
                    histogram.getValueAtPercentile(99) / 1000.0, caller.fromSend.getValueAtPercentile(50) / 1000.0,
                    caller.fromSend.getValueAtPercentile(90) / 1000.0, 100 * clientCpu,
                    100 * serverCpu / ((System.nanoTime() - start) / 1e9));
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

    /** Issues {@code calls} calls on a fixed schedule, each once the one before was answered. */
    private static void pace(final Caller caller, final Context context, final int calls, final int rate)
    {
        final long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long due = System.nanoTime() + interval;
        for (int i = 0; i < calls; i++)
        {
            long now;
            while ((now = System.nanoTime()) < due)
            {
                LockSupport.parkNanos(due - now);
            }
            due += interval;
            caller.done = false;
            caller.start = System.nanoTime();
            context.execute(caller);
            while (!caller.done)
            {
                LockSupport.parkNanos(50_000); // the caller's own wake-up is not measured
            }
        }
    }

    /** Sends one request from the context thread and records the round trip there. */
    private static final class Caller implements Runnable
    {
        private final Session session;
        private final ByteBuffer payload;
        private final Histogram histogram;
        private final Histogram fromSend;
        private volatile long start;
        private long sent;
        private volatile boolean done;

        Caller(final Session session, final ByteBuffer payload, final Histogram histogram)
        {
            this.session = session;
            this.payload = payload;
            this.histogram = histogram;
            this.fromSend = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        }

        @Override
        public void run()
        {
            sent = System.nanoTime();
            final XioFuture<Message> reply = session.request(Outbound.of(payload));
            reply.whenComplete((message, ex) ->
            {
                final long now = System.nanoTime();
                histogram.recordValue(now - start);
                fromSend.recordValue(now - sent);
                if (message != null)
                {
                    message.close();
                }
                done = true;
            });
        }
    }

    private static long contextCpu(final String engine)
    {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if (thread.getName().startsWith(engine + "-ctx"))
            {
                total += Math.max(0, threads.getThreadCpuTime(thread.getId()));
            }
        }
        return total;
    }

    private static void serve(final String mode) throws Exception
    {
        try (XioEngine server = engine("paced-server", mode).build())
        {
            server.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            System.out.println(server.bind("tcp://127.0.0.1:0").uri());
            System.out.flush();
            int c;
            while ((c = System.in.read()) >= 0)
            {
                if (c == 's' || c == 'e')
                {
                    System.out.println(contextCpu("paced-server") / 1e9); // CPU seconds so far
                    System.out.flush();
                }
            }
        }
    }
}
