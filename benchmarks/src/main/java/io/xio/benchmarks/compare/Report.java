package io.xio.benchmarks.compare;

import io.xio.benchmarks.Repetitions;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the runs of a comparison into {@code latest.md}: per group of equal traffic, each case's medians with
 * the spread over repetitions; the ratio of each xio case to each peer, computed per repetition from the pair
 * run back to back and then summarised; and the goals, met or missed.
 */
final class Report
{
    private static final String COMMAND =
        "./mvnw -q -pl benchmarks -am test-compile -Prun -Dbenchmark.main=io.xio.benchmarks.compare.Comparison";

    private static final String PEERS = """

        ## How each case runs

        - **xio**: payload as one data segment, empty header; the server echoes the received segment without a copy
          (transfers: releases it and answers 8 bytes). *context*: each call leaves from the previous completion on
          the context thread; *caller*: the main thread blocks on each future. Poll: *spin* busy-polls 1 s before
          parking, *default* 50 µs, *parked* 0. *N contexts*: N per side, a portal per server context and a session
          to each. The engine has no switch for coalescing (frames committed in one loop turn always leave in one
          write): frames/write shows how much it happened. Pipelined calls reuse one `Outbound` per slot.
          *recycled future*: `CallOptions.withRecycledFuture()` (the future and its response go back to a pool when
          the callback closes the response) against a service registered `RequestReuse.AFTER_ANSWER`, which echoes a
          copy from pooled replies (a view of the received segment would be an object per call). Poll *default* is
          adaptive (it learns the gaps between calls; *spin* and *parked* are fixed).
        - **Spring proxy**: `@XioClient` calling an `@XioService` (INLINE dispatch), `byte[]` as a segment, 1 context,
          default settings (the apps of `SpringOverhead`).
        - **raw socket**: blocking `java.net.Socket`s, TCP_NODELAY, a server thread per connection.
        - **spinning socket** (the tcp floor): non-blocking NIO `SocketChannel`s on both sides, no selector, each side
          spinning on `read` until the whole message is in, TCP_NODELAY, direct buffers, a spinning server thread per
          connection.
        - **memory bandwidth**: one thread `ByteBuffer.put` of 1 MiB from one direct buffer into another, back to back
          through the window (the server JVM idles); the same two buffers each time, so it is cache bandwidth where
          1 MiB fits the cache.
        - **paced** (64 B at 1,000 calls/s): the client's main thread parks until each send time and hands the call
          to the context thread, 1 outstanding; latency from that send. The warm-up runs unpaced (for the JIT
          compiler), then 1 s paced before the window. CPU per side: that JVM's user+system time over the window.
        - **Netty**: 4.2 native epoll, one event loop per side, the canonical echo handler; the client issues from its
          event loop.
        - **gRPC-java**: grpc-netty-shaded (epoll), one unary method with a byte[] marshaller, direct executor on both
          sides (its fastest setting); blocking stub call, or async call with a callback. The marshaller's stream is
          `KnownLength` and `Drainable` (written in one go, as protobuf's are) and it parses into one array of the
          known length.
        - **TLS**: TLS 1.3 over loopback with a throwaway self-signed EC P-256 certificate the server half makes with
          `keytool`, no client certificate. xio runs the JDK's `SSLEngine` inside its link; gRPC uses its default
          provider (BoringSSL through its shaded netty-tcnative where that loads, else the JDK's).
        - **Aeron**: IPC between the two JVMs through a media driver embedded in the server JVM (shared threading
          mode), both sides busy-spinning.
        - **qperf**: Debian's qperf, `tcp_lat` (its mean one-way latency doubled) and `tcp_bw` (a one-way stream; its
          own CPU accounting).
        - Transfers: the server does not read the 1 MiB it receives. Over tcp every byte is still copied into and out
          of the kernel; over shm the receiver gets a view of the ring, so one copy (into the ring) remains.

        Server streams (groups named "server stream"): the client opens one stream with an 8-byte request and the
        server sends messages on it without end, as fast as the client's flow control lets it; the client closes or
        releases each message unread and keeps the group's *demand* asked for (all of it at the start, then half of it
        each time half was taken; one by one for a demand of 1). A "call" in the figures is one message taken by the
        client: msgs/s at the consumer, CPU µs/msg of both processes, alloc B/msg of both JVMs (and each side's).

        - **xio streams**: `Session.openStream` on the client, whose listener closes each message and calls
          `request(n)`; the server's handler offers until `offer()` returns false and resumes in `onReady()`, each
          message an `Outbound` from a pool over one direct buffer (back in the pool when xio releases it), so neither
          side allocates per message in the benchmark's own code. One context per side, default poll. Windows, on
          both engines: `StreamLimits.windowBytes` 1 MiB for 64 B (`window=1m`; 1024 messages bind first), 8 MiB for
          the 1 MiB chunks (`window=8m`); `windowMessages` 1024, the default. A second shm row at 64 B gives xio
          the window Aeron's publisher has (half its 4 MiB IPC term): 2 MiB and 32768 messages. A second shm row at
          1 MiB (*shared*) puts that one buffer in `XioEngine.allocateShared` memory: each message then travels as a
          reference into it instead of being copied through the ring (nobody writes or reads its bytes per message,
          in either row), and comes back once the client closed it. *local*: both ends
          in the client JVM, one engine of one context connected to its own `local://` portal (the server JVM idles; its
          CPU and allocation are the client's). *request(1)*: the client asks for one message after each it took; the
          producer counts what it offered minus what the consumer took (the consumer writes its count into 16 bytes
          of a file in /dev/shm both JVMs map, before it asks for more; not part of xio, whose API gives a producer
          no such count) and the client reports the most: *peak held msgs*, against the window of 1024 messages.
        - **gRPC-java server streaming**: a SERVER_STREAMING method with the byte[] marshaller, direct executor on
          both sides, manual flow control: the server calls `onNext` while `ServerCallStreamObserver.isReady()` and
          resumes in `setOnReadyHandler`; the client drives a `ClientCall` and asks with `request(n)`. gRPC's own
          HTTP/2 window as it comes (default, auto-tuned).
        - **RSocket request-stream**: rsocket-java 1.1.5 over its Netty TCP transport (reactor-netty, epoll),
          `PayloadDecoder.ZERO_COPY` on both sides; the server answers with `Flux.generate` (one payload over a
          retained slice of one direct buffer per message, only as REQUEST_N allows); the client's `BaseSubscriber`
          releases each payload and asks with `request(n)`.
        - **Aeron IPC stream** (the shm floor): one exclusive publication offering back to back (yielding when
          back-pressured, since the driver's conductor shares its CPU) to a subscription busy-polled by a thread of the
          client JVM, through the media driver embedded in the server JVM. No demand: Aeron's flow control is the
          subscriber's position against the term window. Not in the 1 MiB row: the peer's IPC term is 4 MiB, so its
          largest message is 512 KiB (a term's eighth), and its subscriber reassembles no fragments.
        """;

    private final List<Case> cases;
    private final Figures[][] results;
    private final Map<String, String> failures;
    private final Map<String, String> skipped;
    private final List<Goal> goals;
    private final Environment environment;
    private final boolean smoke;

    Report(final List<Case> cases, final Figures[][] results, final Map<String, String> failures,
        final Map<String, String> skipped, final List<Goal> goals, final Environment environment, final boolean smoke)
    {
        this.cases = cases;
        this.results = results;
        this.failures = failures;
        this.skipped = skipped;
        this.goals = goals;
        this.environment = environment;
        this.smoke = smoke;
    }

    String markdown()
    {
        final StringBuilder md = new StringBuilder();
        md.append("# xio side by side: gRPC-java, RSocket, Netty, raw and spinning sockets, Aeron, qperf, memory " +
            "bandwidth\n\n");
        if (smoke)
        {
            md.append("**Smoke run**: short windows, one repetition, few cases. Checks that the harness works; its " +
                "figures mean nothing.\n\n");
        }
        md.append("Command: `").append(COMMAND).append(environment.arguments.isBlank() ? "" :
            " -Dbenchmark.args=\"" + environment.arguments + "\"").append("`\n\n");
        md.append(String.format(Locale.ROOT, "- %s, commit %s, %d min; %d x %s, Linux %s, %s%n", environment.started,
            environment.commit, environment.minutes, environment.processors, environment.cpu, environment.kernel,
            environment.java));
        md.append(environment.pinned ? "- every case in two fresh JVMs: server pinned to CPU 0, client to CPU 1 (taskset)\n"
            : "- every case in two fresh JVMs, **not pinned** (taskset or a second CPU missing)\n");
        md.append(String.format(Locale.ROOT, "- warm-up of at least %d ms, then until the client's JIT compiler is " +
                "quiet for 1 s (at most %d ms); %d ms measured; %d repetitions, interleaved (each repetition runs every " +
                "case once); cells are median [min-max] over repetitions%n", environment.timing.warmupMillis(),
            environment.timing.warmupMaxMillis(), environment.timing.measureMillis(), environment.repetitions));
        md.append("- load average before ").append(environment.loadBefore).append(", after ")
            .append(environment.loadAfter).append(" (the machine is shared: only same-run ratios count)\n");
        md.append("- latency: HdrHistogram of each call's round trip, recorded by the client; CPU: both processes' " +
            "user+system time from /proc over the window (per side in % of a core for paced cases); allocation: both JVMs' per-thread allocation counters over " +
            "the window, divided by the calls (for streams: by the messages the consumer took in the window)\n\n");

        md.append("## Goals: xio against the floors and its own paths\n\n");
        md.append("| goal | xio case | compared with | measured | bound | |\n| --- | --- | --- | --- | --- | --- |\n");
        for (final Goal goal : goals)
        {
            md.append(goalRow(goal)).append('\n');
        }

        md.append("\n## Results\n");
        for (final Map.Entry<String, List<Integer>> group : groups().entrySet())
        {
            final List<Integer> members = group.getValue();
            final Kind kind = Kind.of(cases.get(members.get(0)).workload());
            md.append("\n### ").append(group.getKey()).append("\n\n");
            md.append("| case |");
            for (final Column column : kind.columns)
            {
                md.append(' ').append(column.title).append(" |");
            }
            md.append("\n| --- |").append(" ---: |".repeat(kind.columns.length)).append('\n');
            for (final int i : members)
            {
                final Case c = cases.get(i);
                md.append("| ").append(c.label()).append(" |");
                final String absent = absence(c);
                for (final Column column : kind.columns)
                {
                    md.append(' ').append(absent != null ? "-" : cell(runs(i), column.figure)).append(" |");
                }
                md.append('\n');
            }
            ratios(md, kind, members);
        }

        if (!failures.isEmpty() || !skipped.isEmpty())
        {
            md.append("\n## Not measured\n\n");
            skipped.forEach((id, why) -> md.append("- `").append(id).append("` skipped: ").append(why).append('\n'));
            failures.forEach((id, why) -> md.append("- `").append(id).append("` failed: ").append(why).append('\n'));
        }
        md.append(PEERS);
        md.append("\n![latency percentiles](latency-percentiles.png)\n");
        return md.toString();
    }

    /** Ratio of each of our cases to each peer of the group, per repetition, then median [min-max]. */
    private void ratios(final StringBuilder md, final Kind kind, final List<Integer> members)
    {
        final List<Integer> ours = members.stream().filter(i -> cases.get(i).ours()).toList();
        final List<Integer> peers = members.stream().filter(i -> !cases.get(i).ours()).toList();
        if (ours.isEmpty() || peers.isEmpty())
        {
            return;
        }
        md.append("\n").append(kind.ratioText).append(", per repetition, median [min-max]:\n\n| xio case |");
        for (final int p : peers)
        {
            md.append(' ').append(cases.get(p).label()).append(" |");
        }
        md.append("\n| --- |").append(" ---: |".repeat(peers.size())).append('\n');
        for (final int o : ours)
        {
            md.append("| ").append(cases.get(o).label()).append(" |");
            for (final int p : peers)
            {
                md.append(' ').append(cell(pairRatios(o, p, kind.ratioFigure), 0)).append(" |");
            }
            md.append('\n');
        }
    }

    private String goalRow(final Goal goal)
    {
        final int ours = index(goal.oursId());
        final int peer = goal.peerId() == null ? -1 : index(goal.peerId());
        final String what = goal.peerId() == null ? "-" : peer < 0 ? "`" + goal.peerId() + "` (not in this run)" :
            cases.get(peer).label();
        final String bound = (goal.atMost() ? "<= " : ">= ") + format(goal.bound());
        if (ours < 0)
        {
            return "| " + goal.text() + " | `" + goal.oursId() + "` (not in this run) | " + what + " | n/a | " + bound + " | n/a |";
        }
        final double[][] values = goal.peerId() == null ? runs(ours) : peer < 0 ? new double[0][] :
            pairRatios(ours, peer, goal.figure());
        final int index = goal.peerId() == null ? goal.figure() : 0;
        if (values.length == 0 || Double.isNaN(Repetitions.median(values, index)))
        {
            return "| " + goal.text() + " | " + cases.get(ours).label() + " | " + what + " | n/a | " + bound + " | n/a |";
        }
        final double median = Repetitions.median(values, index);
        return "| " + goal.text() + " | " + cases.get(ours).label() + " | " + what + " | " +
            cell(values, index) + (goal.peerId() == null ? Figures.unit(goal.figure()) : "x") + " | " + bound + " | " +
            (goal.met(median) ? "**met**" : "**missed**") + " |";
    }

    /** For each repetition where both ran: ours / peer of one figure, as one-figure rows. */
    private double[][] pairRatios(final int ours, final int peer, final int figure)
    {
        final List<double[]> ratios = new ArrayList<>();
        for (int rep = 0; rep < results[ours].length; rep++)
        {
            final Figures a = results[ours][rep];
            final Figures b = results[peer][rep];
            if (a != null && b != null)
            {
                ratios.add(new double[] {a.get(figure) / b.get(figure)});
            }
        }
        return ratios.toArray(new double[0][]);
    }

    private double[][] runs(final int caseIndex)
    {
        return Arrays.stream(results[caseIndex]).filter(f -> f != null).map(Figures::values).toArray(double[][]::new);
    }

    private String absence(final Case c)
    {
        return skipped.containsKey(c.id()) ? "skipped" : failures.containsKey(c.id()) ? "failed" : null;
    }

    private int index(final String id)
    {
        for (int i = 0; i < cases.size(); i++)
        {
            if (cases.get(i).id().equals(id))
            {
                return i;
            }
        }
        return -1;
    }

    private Map<String, List<Integer>> groups()
    {
        final Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < cases.size(); i++)
        {
            groups.computeIfAbsent(cases.get(i).group(), g -> new ArrayList<>()).add(i);
        }
        return groups;
    }

    /** One panel per latency group; each case drawn from its median repetition (by p50). */
    List<PercentileChart.Panel> chartPanels()
    {
        final List<PercentileChart.Panel> panels = new ArrayList<>();
        for (final Map.Entry<String, List<Integer>> group : groups().entrySet())
        {
            final Kind kind = Kind.of(cases.get(group.getValue().get(0)).workload());
            if (kind != Kind.LATENCY && kind != Kind.PACED)
            {
                continue;
            }
            final List<PercentileChart.Curve> curves = new ArrayList<>();
            for (final int i : group.getValue())
            {
                final Histogram median = medianHistogram(i);
                if (median != null)
                {
                    curves.add(new PercentileChart.Curve(cases.get(i).label(), median));
                }
            }
            if (!curves.isEmpty())
            {
                panels.add(new PercentileChart.Panel(group.getKey(), curves));
            }
        }
        return panels;
    }

    private Histogram medianHistogram(final int caseIndex)
    {
        final List<Figures> runs = new ArrayList<>();
        for (final Figures f : results[caseIndex])
        {
            if (f != null && f.latency() != null)
            {
                runs.add(f);
            }
        }
        if (runs.isEmpty())
        {
            return null;
        }
        runs.sort((a, b) -> Double.compare(a.get(Figures.P50_US), b.get(Figures.P50_US)));
        return runs.get(runs.size() / 2).latency();
    }

    private static String cell(final double[][] runs, final int index)
    {
        if (runs.length == 0)
        {
            return "-";
        }
        final double[] values = Repetitions.sorted(runs, index);
        if (Double.isNaN(values[0]) && Double.isNaN(values[values.length - 1]))
        {
            return "-";
        }
        final double median = values[values.length / 2];
        return values.length == 1 ? format(median) :
            format(median) + " [" + format(values[0]) + "-" + format(values[values.length - 1]) + "]";
    }

    static String format(final double value)
    {
        if (Double.isNaN(value))
        {
            return "?";
        }
        final double abs = Math.abs(value);
        if (abs >= 10_000)
        {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (abs >= 100)
        {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (abs >= 10)
        {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private record Column(String title, int figure)
    {
    }

    /** What a group measures, hence its columns and the figure its ratios compare. */
    private enum Kind
    {
        LATENCY("p50 / peer's p50 (below 1: xio faster)", Figures.P50_US,
            new Column("p50 µs", Figures.P50_US), new Column("p99 µs", Figures.P99_US),
            new Column("p99.9 µs", Figures.P999_US), new Column("calls/s", Figures.CALLS_PER_S),
            new Column("CPU µs/call", Figures.CPU_US_PER_CALL), new Column("alloc B/call", Figures.ALLOC_B_PER_CALL),
            new Column("warm-up s", Figures.WARMUP_S)),
        PACED("p50 / peer's p50 (below 1: xio faster)", Figures.P50_US,
            new Column("p50 µs", Figures.P50_US), new Column("p99 µs", Figures.P99_US),
            new Column("p99.9 µs", Figures.P999_US), new Column("calls/s", Figures.CALLS_PER_S),
            new Column("server CPU % of a core", Figures.SERVER_CPU_PCT),
            new Column("client CPU % of a core", Figures.CLIENT_CPU_PCT),
            new Column("CPU µs/call", Figures.CPU_US_PER_CALL), new Column("alloc B/call", Figures.ALLOC_B_PER_CALL),
            new Column("warm-up s", Figures.WARMUP_S)),
        RATE("calls/s / peer's calls/s (above 1: xio faster)", Figures.CALLS_PER_S,
            new Column("calls/s", Figures.CALLS_PER_S), new Column("p50 µs", Figures.P50_US),
            new Column("p99 µs", Figures.P99_US), new Column("CPU µs/call", Figures.CPU_US_PER_CALL),
            new Column("alloc B/call", Figures.ALLOC_B_PER_CALL), new Column("frames/write", Figures.FRAMES_PER_WRITE),
            new Column("warm-up s", Figures.WARMUP_S)),
        TRANSFER("MiB/s / peer's MiB/s (above 1: xio faster)", Figures.MIB_PER_S,
            new Column("MiB/s", Figures.MIB_PER_S), new Column("CPU s/GiB", Figures.CPU_S_PER_GIB),
            new Column("p50 µs", Figures.P50_US), new Column("alloc B/call", Figures.ALLOC_B_PER_CALL),
            new Column("warm-up s", Figures.WARMUP_S)),
        STREAM("messages/s / peer's messages/s at the consumer (above 1: xio faster; the same ratio as MiB/s)",
            Figures.CALLS_PER_S,
            new Column("msgs/s", Figures.CALLS_PER_S), new Column("MiB/s", Figures.MIB_PER_S),
            new Column("CPU µs/msg", Figures.CPU_US_PER_CALL), new Column("CPU s/GiB", Figures.CPU_S_PER_GIB),
            new Column("alloc B/msg", Figures.ALLOC_B_PER_CALL),
            new Column("server alloc B/msg", Figures.SERVER_ALLOC_B_PER_CALL),
            new Column("client alloc B/msg", Figures.CLIENT_ALLOC_B_PER_CALL),
            new Column("peak held msgs", Figures.HELD_PEAK), new Column("warm-up s", Figures.WARMUP_S));

        private final String ratioText;
        private final int ratioFigure;
        private final Column[] columns;

        Kind(final String ratioText, final int ratioFigure, final Column... columns)
        {
            this.ratioText = ratioText;
            this.ratioFigure = ratioFigure;
            this.columns = columns;
        }

        static Kind of(final Workload workload)
        {
            if (workload.isStream())
            {
                return STREAM;
            }
            return workload.isTransfer() ? TRANSFER : workload.isPaced() ? PACED : workload.outstanding() > 1 ? RATE :
                LATENCY;
        }
    }
}
