package io.xio.benchmarks.overload;

import io.xio.benchmarks.Pinning;
import io.xio.benchmarks.Repetitions;
import io.xio.benchmarks.overload.api.Probe;
import io.xio.benchmarks.overload.api.Work;
import io.xio.benchmarks.overload.server.OverloadServer;
import io.xio.benchmarks.overload.server.WorkService;
import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.service.ServiceDispatcher;
import io.xio.spring.service.XioServiceExporter;
import org.HdrHistogram.Histogram;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.dataformat.smile.SmileMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A service offered ten times what it can do, with and without xio's bound on its calls, side by side in one run.
 * The server (a Spring Boot process pinned to CPU 0) exports {@link WorkService}: a pool of one thread, each call
 * holding it about 2.5 ms, so about 400 calls/s; and {@link Probe}, which answers at once. This process (pinned to
 * CPU 1) first measures the service's capacity alone (a closed loop of 3 calls outstanding), then offers 4,000
 * calls/s open loop, spread over 4 sessions, each call with a 2 s deadline, while a light probe client calls
 * {@code ping} 50 times a second on a session of its own. Each call's fate is counted by when it was issued:
 * goodput is calls answered (so within their deadline) per second; refused are the server's back-pressure
 * answers; timed out, deadlines that passed; window full, calls this side refused because a session had 1,024
 * calls unanswered already (its in-flight limit). Backlog is the most calls the server held waiting to start (in
 * xio's queue and in the service's pool), sampled every 5 ms.
 *
 * <p>Modes: {@code off} is the service as it is exported today (no {@code xio.server.services.work.*}: xio starts
 * every call at once, and the calls wait in the service's pool); {@code on} sets
 * {@code xio.server.services.work.max-concurrent-calls=1}, the pool's size, and the default queue of twice that.
 * Repetitions interleave the modes, each in a fresh server; the table shows medians, the spread follows it.
 *
 * <p>Run: {@code ./mvnw -q -pl benchmarks -am test-compile -Prun -Dbenchmark.main=io.xio.benchmarks.overload.Overload}
 * (options in {@code -Dbenchmark.args}: {@code --reps N}, {@code --seconds S} measured per mode, default 3 and 10).
 */
public final class Overload
{
    private static final int SESSIONS = 4;
    private static final int OFFERED_PER_SECOND = 4_000;
    private static final Duration DEADLINE = Duration.ofSeconds(2);
    private static final int PROBES_PER_SECOND = 50;
    private static final int CAPACITY_OUTSTANDING = 3;
    private static final Duration CAPACITY_WARMUP = Duration.ofSeconds(1);
    private static final Duration CAPACITY_MEASURED = Duration.ofSeconds(3);
    /** The overload runs this long before its calls count: queues fill, deadlines start to pass. */
    private static final Duration OVERLOAD_WARMUP = Duration.ofSeconds(4);

    private enum Mode
    {
        OFF("bound off (today)"),
        ON("bound on (1 + 2 queued)");

        final String label;

        Mode(final String label)
        {
            this.label = label;
        }
    }

    // Figures of one run, by index.
    private static final int OFFERED = 0;
    private static final int CAPACITY = 1;
    private static final int GOODPUT = 2;
    private static final int REFUSED = 3;
    private static final int TIMED_OUT = 4;
    private static final int WINDOW_FULL = 5;
    private static final int OTHER = 6;
    private static final int PROBE_P50 = 7;
    private static final int PROBE_P99 = 8;
    private static final int PROBE_FAILED = 9;
    private static final int BACKLOG = 10;
    private static final int FIGURES = 11;

    private Overload()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && args[0].equals("server"))
        {
            serve(Mode.valueOf(args[1]));
            return;
        }
        int reps = 3;
        int seconds = 10;
        // exec:exec hands -Dbenchmark.args over as one argument
        final String[] options = String.join(" ", args).trim().split("\\s+");
        for (int i = 0; i < options.length; i++)
        {
            switch (options[i])
            {
                case "" -> { }
                case "--reps" -> reps = Integer.parseInt(options[++i]);
                case "--seconds" -> seconds = Integer.parseInt(options[++i]);
                default -> throw new IllegalArgumentException("unknown option " + options[i] +
                    " (--reps N, --seconds S)");
            }
        }
        final boolean pinned = Pinning.pin(ProcessHandle.current().pid(), 1);
        final Mode[] modes = Mode.values();
        final double[][][] results = new double[modes.length][reps][];
        for (int rep = 0; rep < reps; rep++)
        {
            for (int m = 0; m < modes.length; m++)
            {
                results[m][rep] = run(modes[m], pinned, Duration.ofSeconds(seconds));
                System.err.printf(Locale.ROOT, "rep %d %s: capacity %.0f/s, goodput %.0f/s%n", rep + 1,
                    modes[m].label, results[m][rep][CAPACITY], results[m][rep][GOODPUT]);
            }
        }
        print(modes, results, pinned, seconds);
    }

    private static void print(final Mode[] modes, final double[][][] results, final boolean pinned, final int seconds)
    {
        final PrintStream out = System.out;
        out.printf(Locale.ROOT, "%n10x overload: %d sessions offering %,d calls/s with %d s deadlines to a " +
            "service of about 400 calls/s, a probe client at %d calls/s; %d s measured per run%s, %d repetitions, " +
            "medians%n",
            SESSIONS, OFFERED_PER_SECOND, DEADLINE.toSeconds(), PROBES_PER_SECOND, seconds,
            pinned ? " (server on CPU 0, clients on CPU 1)" : " (unpinned: no taskset)", results[0].length);
        out.printf("%-24s %9s %10s %10s %9s %10s %11s %12s %10s %10s %8s%n", "mode", "offered/s", "capacity/s",
            "goodput/s", "good/cap", "refused/s", "timed out/s", "window full/s", "probe p50", "probe p99",
            "backlog");
        for (int m = 0; m < modes.length; m++)
        {
            final double[][] reps = results[m];
            out.printf(Locale.ROOT,
                "%-24s %,9.0f %,10.0f %,10.0f %8.0f%% %,10.0f %,11.0f %,13.0f %7.2f ms %7.2f ms %,8.0f%n",
                modes[m].label, Repetitions.median(reps, OFFERED), Repetitions.median(reps, CAPACITY),
                Repetitions.median(reps, GOODPUT), 100 * medianRatio(reps, GOODPUT, reps, CAPACITY),
                Repetitions.median(reps, REFUSED), Repetitions.median(reps, TIMED_OUT),
                Repetitions.median(reps, WINDOW_FULL), Repetitions.median(reps, PROBE_P50),
                Repetitions.median(reps, PROBE_P99), Repetitions.median(reps, BACKLOG));
        }
        final double[][] off = results[Mode.OFF.ordinal()];
        final double[][] on = results[Mode.ON.ordinal()];
        out.printf(Locale.ROOT, "%nratios, median of per-repetition ratios [min-max]:%n");
        out.printf(Locale.ROOT, "  goodput on / capacity on:           %s%n", ratioCell(on, GOODPUT, on, CAPACITY));
        out.printf(Locale.ROOT, "  goodput on / capacity off (no xio queue in the way): %s%n",
            ratioCell(on, GOODPUT, off, CAPACITY));
        out.printf(Locale.ROOT, "  goodput off / capacity off:         %s%n", ratioCell(off, GOODPUT, off, CAPACITY));
        out.printf(Locale.ROOT, "  goodput on / goodput off:           %s%n", ratioCell(on, GOODPUT, off, GOODPUT));
        out.printf(Locale.ROOT, "  probe p99 on / off:                 %s%n", ratioCell(on, PROBE_P99, off, PROBE_P99));
        out.printf(Locale.ROOT, "%nper repetition (goodput/s, capacity/s, refused/s, timed out/s, window full/s, " +
            "other failures/s, probe failures, backlog):%n");
        for (int m = 0; m < modes.length; m++)
        {
            for (int rep = 0; rep < results[m].length; rep++)
            {
                final double[] r = results[m][rep];
                out.printf(Locale.ROOT, "  %-24s rep %d: %,6.0f %,6.0f %,7.0f %,7.0f %,7.0f %,5.0f %,4.0f %,6.0f%n",
                    modes[m].label, rep + 1, r[GOODPUT], r[CAPACITY], r[REFUSED], r[TIMED_OUT], r[WINDOW_FULL],
                    r[OTHER], r[PROBE_FAILED], r[BACKLOG]);
            }
        }
    }

    private static double medianRatio(final double[][] a, final int ai, final double[][] b, final int bi)
    {
        return sortedRatios(a, ai, b, bi)[a.length / 2];
    }

    private static double[] sortedRatios(final double[][] a, final int ai, final double[][] b, final int bi)
    {
        final double[] ratios = new double[a.length];
        for (int i = 0; i < a.length; i++)
        {
            ratios[i] = a[i][ai] / b[i][bi];
        }
        java.util.Arrays.sort(ratios);
        return ratios;
    }

    private static String ratioCell(final double[][] a, final int ai, final double[][] b, final int bi)
    {
        final double[] ratios = sortedRatios(a, ai, b, bi);
        return String.format(Locale.ROOT, "%.2f [%.2f-%.2f]", ratios[ratios.length / 2], ratios[0],
            ratios[ratios.length - 1]);
    }

    // ---- the server process ----

    private static void serve(final Mode mode) throws IOException
    {
        final List<String> properties = new ArrayList<>(List.of("xio.contexts=1",
            "xio.portals[0].uri=tcp://127.0.0.1:0", "spring.main.banner-mode=off", "logging.level.root=warn"));
        if (mode == Mode.ON)
        {
            properties.add("xio.server.services.work.max-concurrent-calls=1");
        }
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OverloadServer.class)
                 .web(WebApplicationType.NONE).properties(properties.toArray(String[]::new)).run())
        {
            final XioServiceExporter exporter = context.getBean(XioServiceExporter.class);
            final WorkService work = context.getBean(WorkService.class);
            final ServiceDispatcher dispatcher = exporter.services().stream()
                .filter(d -> d.resource().equals("work")).findFirst().orElseThrow();
            final AtomicInteger backlog = new AtomicInteger();
            final Thread sampler = new Thread(() ->
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    backlog.accumulateAndGet(dispatcher.queued() + work.backlog(), Math::max);
                    LockSupport.parkNanos(5_000_000);
                }
            }, "backlog-sampler");
            sampler.setDaemon(true);
            sampler.start();
            System.out.println("ADDRESS tcp://127.0.0.1:" + exporter.portals().get(0).uri().port());
            System.out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine())
            {
                if (line.equals("reset"))
                {
                    backlog.set(0);
                }
                else if (line.equals("report"))
                {
                    System.out.println("BACKLOG " + backlog.get());
                    System.out.flush();
                }
            }
            sampler.interrupt();
        }
    }

    // ---- the clients, in this process ----

    private static double[] run(final Mode mode, final boolean pin, final Duration measured) throws Exception
    {
        final List<String> command = new ArrayList<>();
        if (pin)
        {
            command.addAll(List.of("taskset", "-c", "0"));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
            "-cp", System.getProperty("java.class.path"), Overload.class.getName(), "server", mode.name()));
        final Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
            StandardCharsets.UTF_8));
        final PrintStream in = new PrintStream(server.getOutputStream(), true, StandardCharsets.UTF_8);
        try (XioEngine client = XioEngine.builder().name("overload-client").contexts(1).build())
        {
            final String address = awaitLine(out, "ADDRESS ").substring("ADDRESS ".length());
            final List<Session> sessions = new ArrayList<>();
            for (int i = 0; i < SESSIONS; i++)
            {
                sessions.add(client.connect(address + "/work"));
            }
            final Session probe = client.connect(address + "/probe");
            final ByteBuffer workHeader = header(Work.class, "work");
            final ByteBuffer probeHeader = header(Probe.class, "ping");
            final double[] figures = new double[FIGURES];
            figures[CAPACITY] = capacity(sessions.get(0), workHeader);
            in.println("reset");
            final Prober prober = new Prober(probe, probeHeader);
            final Thread probing = new Thread(prober, "probe");
            final Flood flood = new Flood(sessions, workHeader, measured);
            probing.start();
            flood.run(prober);
            probing.join();
            flood.settle();
            in.println("report");
            figures[BACKLOG] = Double.parseDouble(awaitLine(out, "BACKLOG ").substring("BACKLOG ".length()));
            final double window = measured.toNanos() / 1e9;
            figures[OFFERED] = flood.issued.sum() / window;
            figures[GOODPUT] = flood.answered.sum() / window;
            figures[REFUSED] = flood.refused.sum() / window;
            figures[TIMED_OUT] = flood.timedOut.sum() / window;
            figures[WINDOW_FULL] = flood.windowFull.sum() / window;
            figures[OTHER] = flood.other.sum() / window;
            figures[PROBE_P50] = prober.latency.getValueAtPercentile(50) / 1e6;
            figures[PROBE_P99] = prober.latency.getValueAtPercentile(99) / 1e6;
            figures[PROBE_FAILED] = prober.failed.get();
            for (final Session session : sessions)
            {
                session.close();
            }
            probe.close();
            return figures;
        }
        finally
        {
            in.close();
            if (!server.waitFor(20, TimeUnit.SECONDS))
            {
                server.destroyForcibly();
            }
        }
    }

    private static String awaitLine(final BufferedReader out, final String prefix) throws IOException
    {
        for (String line = out.readLine(); line != null; line = out.readLine())
        {
            if (line.startsWith(prefix))
            {
                return line;
            }
        }
        throw new IOException("the benchmark server ended before printing " + prefix.trim());
    }

    /** The call header the Spring service expects for {@code method}, whose one argument travels as data. */
    private static ByteBuffer header(final Class<?> api, final String method) throws NoSuchMethodException
    {
        final ServiceMethod call = ServiceMethod.of(api.getMethod(method, byte[].class), api);
        final JacksonXioCodec codec = new JacksonXioCodec(SmileMapper.builder().build());
        return Invocation.header(call.wireName(), codec.encodeArguments(Invocation.withoutSegments(call,
            new Object[] {new byte[0]}), call.parameterTypes()));
    }

    private static Outbound call(final ByteBuffer header, final ByteBuffer payload)
    {
        return Outbound.of(header.duplicate(), payload.duplicate());
    }

    /** Calls answered per second with {@link #CAPACITY_OUTSTANDING} outstanding: what the service does alone. */
    private static double capacity(final Session session, final ByteBuffer header) throws Exception
    {
        final ByteBuffer payload = ByteBuffer.wrap(new byte[64]);
        final CallOptions options = CallOptions.timeout(DEADLINE);
        final long start = System.nanoTime();
        final long from = start + CAPACITY_WARMUP.toNanos();
        final long until = from + CAPACITY_MEASURED.toNanos();
        final AtomicLong answered = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final AtomicInteger loops = new AtomicInteger(CAPACITY_OUTSTANDING);
        for (int i = 0; i < CAPACITY_OUTSTANDING; i++)
        {
            new Object()
            {
                void next()
                {
                    if (System.nanoTime() >= until)
                    {
                        if (loops.decrementAndGet() == 0)
                        {
                            done.complete(null);
                        }
                        return;
                    }
                    session.request(call(header, payload), options).whenComplete((reply, ex) ->
                    {
                        final long now = System.nanoTime();
                        if (ex == null)
                        {
                            reply.close();
                            if (now >= from && now < until)
                            {
                                answered.incrementAndGet();
                            }
                        }
                        else
                        {
                            failed.incrementAndGet();
                        }
                        next();
                    });
                }
            }.next();
        }
        done.get(CAPACITY_WARMUP.plus(CAPACITY_MEASURED).plus(DEADLINE).toSeconds() + 10, TimeUnit.SECONDS);
        if (failed.get() > 0)
        {
            System.err.println("capacity run: " + failed.get() + " calls failed");
        }
        return answered.get() / (CAPACITY_MEASURED.toNanos() / 1e9);
    }

    /** Offers {@link #OFFERED_PER_SECOND} calls open loop over the sessions; counts each call's fate. */
    private static final class Flood
    {
        final LongAdder issued = new LongAdder();
        final LongAdder answered = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder timedOut = new LongAdder();
        final LongAdder windowFull = new LongAdder();
        final LongAdder other = new LongAdder();
        private final AtomicLong outstanding = new AtomicLong();
        private final List<Session> sessions;
        private final ByteBuffer header;
        private final Duration measured;
        private final ByteBuffer payload = ByteBuffer.wrap(new byte[64]);
        private final CallOptions options = CallOptions.timeout(DEADLINE).withWaitWhenFull(false);

        Flood(final List<Session> sessions, final ByteBuffer header, final Duration measured)
        {
            this.sessions = sessions;
            this.header = header;
            this.measured = measured;
        }

        /** Issues every call on its schedule (late ones at once, so a slow turn does not lower the rate). */
        void run(final Prober prober)
        {
            final long interval = TimeUnit.SECONDS.toNanos(1) / OFFERED_PER_SECOND;
            final long start = System.nanoTime();
            final long from = start + OVERLOAD_WARMUP.toNanos();
            final long until = from + measured.toNanos();
            prober.window(from, until);
            long next = start;
            int turn = 0;
            while (true)
            {
                final long now = System.nanoTime();
                if (now >= until)
                {
                    return;
                }
                while (next <= now)
                {
                    issue(sessions.get(turn++ % sessions.size()), next >= from);
                    next += interval;
                }
                LockSupport.parkNanos(next - now);
            }
        }

        private void issue(final Session session, final boolean counted)
        {
            if (counted)
            {
                issued.increment();
            }
            outstanding.incrementAndGet();
            final XioFuture<Message> reply;
            try
            {
                reply = session.request(call(header, payload), options);
            }
            catch (final RuntimeException ex)
            {
                settled(null, ex, counted);
                return;
            }
            reply.whenComplete((message, ex) -> settled(message, ex, counted));
        }

        private void settled(final Message message, final Throwable failure, final boolean counted)
        {
            if (message != null)
            {
                message.close();
            }
            if (counted)
            {
                final Throwable cause = failure instanceof java.util.concurrent.CompletionException &&
                    failure.getCause() != null ? failure.getCause() : failure;
                if (cause == null)
                {
                    answered.increment(); // a deadline that passes fails the call: an answer is in time
                }
                else if (cause instanceof BackPressureException && cause.getCause() instanceof RemoteException)
                {
                    refused.increment(); // the server's refusal; without a remote cause it is this side's window
                }
                else if (cause instanceof XioTimeoutException)
                {
                    timedOut.increment();
                }
                else if (cause instanceof BackPressureException)
                {
                    windowFull.increment();
                }
                else
                {
                    other.increment();
                }
            }
            outstanding.decrementAndGet();
        }

        /** Waits until every call issued has its outcome: at most a deadline after the last. */
        void settle()
        {
            final long until = System.nanoTime() + DEADLINE.plusSeconds(10).toNanos();
            while (outstanding.get() > 0 && System.nanoTime() < until)
            {
                LockSupport.parkNanos(1_000_000);
            }
            if (outstanding.get() > 0)
            {
                throw new IllegalStateException(outstanding.get() + " calls never settled");
            }
        }
    }

    /** A light client of the probe service: one call at a time on its schedule, latency of each answered one. */
    private static final class Prober implements Runnable
    {
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final AtomicInteger failed = new AtomicInteger();
        private final Session session;
        private final ByteBuffer header;
        private final ByteBuffer payload = ByteBuffer.wrap(new byte[64]);
        private final CompletableFuture<long[]> window = new CompletableFuture<>();

        Prober(final Session session, final ByteBuffer header)
        {
            this.session = session;
            this.header = header;
        }

        void window(final long from, final long until)
        {
            window.complete(new long[] {from, until});
        }

        @Override
        public void run()
        {
            final long[] times = window.join();
            final long interval = TimeUnit.SECONDS.toNanos(1) / PROBES_PER_SECOND;
            long next = times[0];
            while (next < times[1])
            {
                LockSupport.parkNanos(next - System.nanoTime());
                final long start = System.nanoTime();
                try (Message reply = session.request(call(header, payload), CallOptions.timeout(DEADLINE)).get())
                {
                    latency.recordValue(System.nanoTime() - start);
                }
                catch (final Exception ex)
                {
                    failed.incrementAndGet();
                }
                next += interval;
            }
        }
    }
}
