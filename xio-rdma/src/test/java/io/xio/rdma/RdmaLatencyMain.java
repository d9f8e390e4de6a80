package io.xio.rdma;

import io.xio.engine.CallOptions;
import io.xio.engine.Context;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.transport.ServerProcess;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Request/response round-trip latency over {@code rdma://} for the Soft-RoCE benchmark in
 * {@code integration-tests/rdma/run-benchmark.sh}, set up like {@code ibv_rc_pingpong}: the server is another
 * process ({@link ServerProcess}) whose one context busy-polls, the client sends one request at a time.
 *
 * <p>Cases (comma-separated, in this order by default):
 * <ul>
 *   <li>{@code manual-listener}: the calling thread runs the client's context ({@code manualContexts}) and uses
 *       the allocation-free API ({@link ResponseListener}, one reused {@link Outbound}; the server's service is
 *       {@code AFTER_ANSWER}): one busy thread per side, as {@code ibv_rc_pingpong} has.</li>
 *   <li>{@code manual-future}: the same with the everyday future API (a future, message and views per call).</li>
 *   <li>{@code threaded-listener}: the client's context busy-polls on its own thread, the caller parks until the
 *       listener unparks it (as a future's {@code join} would): one busy thread per side plus a hand-off to and
 *       from the caller each way. (A spinning caller would make three busy threads on the guest's two vCPUs,
 *       and the guest's scheduler then answers in time slices of milliseconds.)</li>
 * </ul>
 *
 * <p>Warm-up: emulation compiles slowly, so a fixed count of calls may measure the interpreter. Calls go in
 * windows of {@value #WINDOW} until {@value #STALE_WINDOWS} windows in a row were no faster than the best
 * one and the JIT compiled nothing for {@value #QUIET_WINDOWS} windows (a compiler thread running next to the two
 * busy ones leaves them less than a vCPU each); at least the minimum warm-up, at most the warm-up time. A
 * maximum of 0 s makes the minimum an exact count. Prints {@code <case> <bytes> p50 <us> p99 <us> mean <us> warmup
 * <calls>} per case and size.
 *
 * <p>Side by side: with {@code -Dxio.bench.blocks=N} the samples are taken in N blocks; after each one this prints
 * {@code # block <case> <bytes> <block> mean <us> p50 <us> p99 <us>}, then {@code # pause <case> <bytes> <block>} and
 * waits for a line on standard input, so the job can run the
 * reference tool for a block in between while both xio sides are quiet (the contexts park after a short
 * busy-poll). The emulated guest's speed drifts with the host's load, so only blocks measured next to each
 * other compare well.
 *
 * <p>Args: samples, minimum warm-up calls, maximum warm-up seconds, cases, sizes. {@code -Dxio.bench.serverJvm=...}
 * passes JVM options (space-separated) to the server process; {@code -Dxio.bench.bind=shm://name} (or another URI)
 * measures another transport the same way, to tell the engine's share from the verbs' share.
 */
public final class RdmaLatencyMain
{
    private static final int WINDOW = 1_000;
    private static final int STALE_WINDOWS = 8;
    private static final double FASTER = 0.98;
    private static final int QUIET_WINDOWS = 20;
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
    /** Long enough never to park between calls, short enough to leave the CPUs to the tool during a pause. */
    private static final Duration BUSY_POLL = Duration.ofMillis(200);
    private static final int BLOCKS = Integer.getInteger("xio.bench.blocks", 1);

    private RdmaLatencyMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int samples = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        final int minWarmup = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        final long maxWarmupNanos = TimeUnit.SECONDS.toNanos(args.length > 2 ? Long.parseLong(args[2]) : 120);
        final List<String> cases = List.of((args.length > 3 ? args[3] :
            "manual-listener,manual-future,threaded-listener").split(","));
        final int[] sizes = Arrays.stream((args.length > 4 ? args[4] : "64,4096").split(","))
            .mapToInt(Integer::parseInt).toArray();
        System.out.printf("nanoTime costs %.0f ns here%n", nanoTimeCost());
        final String[] serverJvm = ("-Xmx512m --add-exports java.base/sun.nio.ch=ALL-UNNAMED " +
            "-Dxio.server.busyPollMillis=" + BUSY_POLL.toMillis() + " " +
            System.getProperty("xio.bench.serverJvm", "")).trim().split(" +");
        try (ServerProcess server = ServerProcess.start(
            System.getProperty("xio.bench.bind", "rdma://" + RdmaTestAddress.ip() + ":0"), serverJvm))
        {
            for (final String name : cases)
            {
                final boolean listener = name.endsWith("-listener");
                final String uri = server.uri() + (listener ? "/echo-reuse" : "/echo");
                switch (name)
                {
                    case "manual-listener", "manual-future" -> runManual(name, uri, listener, sizes, samples,
                        minWarmup, maxWarmupNanos);
                    case "threaded-listener" -> runThreaded(name, uri, sizes, samples, minWarmup,
                        maxWarmupNanos);
                    default -> throw new IllegalArgumentException("unknown case " + name);
                }
            }
        }
    }

    private static void runManual(final String name, final String uri, final boolean listener, final int[] sizes,
        final int samples, final int minWarmup, final long maxWarmupNanos) throws Exception
    {
        try (XioEngine client = XioEngine.builder().name("bench-" + name).contexts(1).manualContexts(true).build())
        {
            final Context context = client.contexts().get(0);
            final CompletableFuture<Session> opening = client.openSession(uri, SessionOptions.DEFAULT);
            while (!opening.isDone())
            {
                context.doWork();
            }
            try (Session session = opening.get())
            {
                for (final int size : sizes)
                {
                    final RoundTrip trip = listener ? new ListenerTrip(session, context, size) :
                        new FutureTrip(session, context, size);
                    measure(name, size, trip, samples, minWarmup, maxWarmupNanos);
                }
            }
        }
    }

    private static void runThreaded(final String name, final String uri, final int[] sizes, final int samples,
        final int minWarmup, final long maxWarmupNanos) throws Exception
    {
        try (XioEngine client = XioEngine.builder().name("bench-" + name).contexts(1)
                .busyPoll(BUSY_POLL).build();
             Session session = client.connect(uri))
        {
            for (final int size : sizes)
            {
                measure(name, size, new ListenerTrip(session, null, size), samples, minWarmup, maxWarmupNanos);
            }
        }
    }

    private static void measure(final String name, final int size, final RoundTrip trip, final int samples,
        final int minWarmup, final long maxWarmupNanos)
    {
        final long warmStart = System.nanoTime();
        final StringBuilder curve = new StringBuilder();
        long warmed = 0;
        long best = Long.MAX_VALUE;
        int stale = 0;
        int quiet = 0;
        long compiling = JIT.getTotalCompilationTime();
        while (warmed < minWarmup || maxWarmupNanos > 0 && (stale < STALE_WINDOWS || quiet < QUIET_WINDOWS) &&
            System.nanoTime() - warmStart < maxWarmupNanos)
        {
            final long start = System.nanoTime();
            for (int i = 0; i < WINDOW; i++)
            {
                trip.call(size);
            }
            final long window = System.nanoTime() - start;
            warmed += WINDOW;
            if (window < best * FASTER)
            {
                best = window;
                stale = 0;
            }
            else
            {
                stale++;
            }
            final long compiled = JIT.getTotalCompilationTime();
            quiet = compiled == compiling ? quiet + 1 : 0;
            compiling = compiled;
            if (warmed % (WINDOW * 5) == 0)
            {
                curve.append(String.format(" %.1f", window / 1e3 / WINDOW));
            }
        }
        System.out.printf("# %s %d warm-up %.1f s (JIT %.1f s so far), mean us per %d-call window, every 5th:%s%n",
            name, size, (System.nanoTime() - warmStart) / 1e9, compiling / 1e3, WINDOW, curve);
        final long[] nanos = new long[samples];
        long total = 0;
        for (int block = 0, i = 0; block < BLOCKS; block++)
        {
            final int end = samples * (block + 1) / BLOCKS;
            long blockTotal = 0;
            for (final int first = i; i < end; i++)
            {
                final long start = System.nanoTime();
                trip.call(size);
                nanos[i] = System.nanoTime() - start;
                blockTotal += nanos[i];
            }
            total += blockTotal;
            final int from = samples * block / BLOCKS;
            final long[] sorted = Arrays.copyOfRange(nanos, from, end);
            Arrays.sort(sorted);
            System.out.printf("# block %s %d %d mean %.1f p50 %.1f p99 %.1f%n", name, size, block,
                blockTotal / 1e3 / (end - from), sorted[sorted.length / 2] / 1e3,
                sorted[(int)(sorted.length * 0.99)] / 1e3);
            if (BLOCKS > 1)
            {
                pause(name, size, block);
            }
        }
        Arrays.sort(nanos);
        System.out.printf("%s %d p50 %.1f p99 %.1f mean %.1f warmup %d%n", name, size, nanos[samples / 2] / 1e3,
            nanos[(int)(samples * 0.99)] / 1e3, total / 1e3 / samples, warmed);
    }

    /** Lets the job run its reference tool while this side is quiet: asks on stdout, waits for a line on stdin. */
    private static void pause(final String name, final int size, final int block)
    {
        System.out.printf("# pause %s %d %d%n", name, size, block);
        System.out.flush();
        try
        {
            int c;
            while ((c = System.in.read()) >= 0 && c != '\n')
            {
                // the job answers with one line when its tool is done
            }
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static double nanoTimeCost()
    {
        long sink = 0;
        final int n = 200_000;
        final long start = System.nanoTime();
        for (int i = 0; i < n; i++)
        {
            sink += System.nanoTime();
        }
        return (System.nanoTime() - start + (sink & 1)) / (double)n;
    }

    /** One request and its echo; throws when the echo is wrong. */
    private interface RoundTrip
    {
        void call(int size);
    }

    /** The everyday API: a new outbound and future per call, the response closed by the caller. */
    private static final class FutureTrip implements RoundTrip
    {
        private final Session session;
        private final Context driver;
        private final ByteBuffer payload;

        FutureTrip(final Session session, final Context driver, final int size)
        {
            this.session = session;
            this.driver = driver;
            this.payload = ByteBuffer.allocateDirect(size);
        }

        @Override
        public void call(final int size)
        {
            final var future = session.request(Outbound.of(payload));
            while (driver != null && !future.isDone())
            {
                driver.doWork();
            }
            try (Message reply = future.get(10, TimeUnit.SECONDS))
            {
                if (reply.headerLength() != size)
                {
                    throw new IllegalStateException("echo of " + reply.headerLength() + " bytes");
                }
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException("request failed", ex);
            }
        }
    }

    /** The allocation-free API: one outbound reused, the answer told to this listener. */
    private static final class ListenerTrip implements RoundTrip, ResponseListener
    {
        private final Session session;
        private final Context driver;
        private final Outbound request;
        private volatile boolean done;
        private volatile int length;
        private volatile Throwable failure;
        private volatile Thread waiter;

        ListenerTrip(final Session session, final Context driver, final int size)
        {
            this.session = session;
            this.driver = driver;
            this.request = Outbound.of(ByteBuffer.allocateDirect(size));
        }

        @Override
        public void call(final int size)
        {
            done = false;
            waiter = Thread.currentThread();
            session.request(request, CallOptions.DEFAULT, this);
            while (!done)
            {
                if (driver != null)
                {
                    driver.doWork();
                }
                else
                {
                    LockSupport.park();
                }
            }
            if (failure != null)
            {
                throw new IllegalStateException("request failed", failure);
            }
            if (length != size)
            {
                throw new IllegalStateException("echo of " + length + " bytes");
            }
        }

        @Override
        public void onResponse(final long requestId, final Message response)
        {
            length = response.headerLength();
            done = true;
            if (driver == null)
            {
                LockSupport.unpark(waiter);
            }
        }

        @Override
        public void onFailure(final long requestId, final Throwable cause)
        {
            failure = cause;
            done = true;
            if (driver == null)
            {
                LockSupport.unpark(waiter);
            }
        }
    }
}
