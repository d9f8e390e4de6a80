package io.xio.benchmarks.compare;

import io.xio.benchmarks.Pinning;
import io.xio.engine.StreamLimits;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import static io.xio.benchmarks.compare.Workload.KIB;
import static io.xio.benchmarks.compare.Workload.MIB;

/**
 * The side-by-side comparison: xio (tcp, shm, the Spring proxy) against the floors (a busy-spinning NIO socket,
 * Aeron IPC, single-thread memory bandwidth) and its peers (raw Java sockets, Netty epoll, gRPC-java, qperf), and
 * xio's server streams (tcp, shm, local) against gRPC-java server streaming, RSocket request-stream and an Aeron IPC
 * stream, each case in a fresh server JVM on CPU 0 and client JVM on CPU 1, repetitions
 * interleaved so that every repetition compares cases run minutes apart at most. Writes {@code latest.md} (the
 * tables, ratios pair by pair, goals met or missed) and {@code latency-percentiles.png} to the output directory.
 *
 * <p>Full run (about 20 minutes): {@code ./mvnw -q -pl benchmarks -am test-compile -Prun
 * -Dbenchmark.main=io.xio.benchmarks.compare.Comparison}. Options in {@code -Dbenchmark.args}: {@code --smoke}
 * (a few cases and every stream case, short windows, one repetition, into {@code target/smoke}; exits non-zero if a
 * case fails),
 * {@code --reps N}, {@code --only REGEX} (case ids), {@code --out DIR}, {@code --warmup-ms N} (shortest warm-up),
 * {@code --warmup-max-ms N} (longest, when the JIT compiler does not settle), {@code --measure-ms N}, {@code --jfr}
 * (a JFR profile of both JVMs of every run, next to the logs in {@code OUT/logs}).
 */
public final class Comparison
{
    private Comparison()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Map<String, String> options = options(args);
        final boolean smoke = options.containsKey("smoke");
        final boolean jfr = options.containsKey("jfr");
        final int reps = Integer.parseInt(options.getOrDefault("reps", smoke ? "1" : "3"));
        final long warmup = Long.parseLong(options.getOrDefault("warmup-ms", smoke ? "300" : "3000"));
        final long warmupMax = Long.parseLong(options.getOrDefault("warmup-max-ms", smoke ? "300" : "20000"));
        final long measure = Long.parseLong(options.getOrDefault("measure-ms", smoke ? "300" : "3000"));
        final Workload.Timing timing = new Workload.Timing(warmup, Math.max(warmup, warmupMax), measure);
        final Path out = Path.of(options.getOrDefault("out", smoke ? "target/smoke" : "results"));
        final Pattern only = Pattern.compile(options.getOrDefault("only", ".*"));

        final List<Case> cases = new ArrayList<>();
        for (final Case c : smoke ? smokeCases(timing) : fullCases(timing))
        {
            if (only.matcher(c.id()).find())
            {
                cases.add(c);
            }
        }
        final boolean pin = Pinning.possible();
        final Map<String, String> skipped = new LinkedHashMap<>();
        if (cases.stream().anyMatch(c -> c.peer().equals("qperf")))
        {
            final String reason = Qperf.unavailableReason(!smoke);
            if (reason != null)
            {
                cases.stream().filter(c -> c.peer().equals("qperf")).forEach(c -> skipped.put(c.id(), reason));
            }
        }
        final Environment environment = Environment.capture(String.join(" ", args), pin, reps, timing);
        final Figures[][] results = new Figures[cases.size()][reps];
        final Map<String, String> failures = new LinkedHashMap<>();
        final Path logs = out.resolve("logs");
        for (int rep = 0; rep < reps; rep++)
        {
            for (int i = 0; i < cases.size(); i++)
            {
                final Case c = cases.get(i);
                if (skipped.containsKey(c.id()) || failures.containsKey(c.id()))
                {
                    continue;
                }
                final String tag = c.id() + "-rep" + (rep + 1);
                try
                {
                    results[i][rep] = c.peer().equals("qperf") ? Qperf.run(c, pin, logs, tag) : JvmRun.run(c, pin, jfr, logs, tag);
                    if (c.workload().isStream())
                    {
                        System.err.printf(Locale.ROOT, "rep %d/%d %-28s %,12.0f msgs/s  %8.1f MiB/s%n", rep + 1, reps,
                            c.id(), results[i][rep].get(Figures.CALLS_PER_S), results[i][rep].get(Figures.MIB_PER_S));
                        continue;
                    }
                    System.err.printf(Locale.ROOT, "rep %d/%d %-28s p50 %9.2f us  %,12.0f calls/s  %8.1f MiB/s%n", rep + 1,
                        reps, c.id(), results[i][rep].get(Figures.P50_US), results[i][rep].get(Figures.CALLS_PER_S),
                        results[i][rep].get(Figures.MIB_PER_S));
                }
                catch (final Exception ex)
                {
                    failures.put(c.id(), String.valueOf(ex.getMessage()).lines().findFirst().orElse(ex.toString()));
                    System.err.printf("rep %d/%d %-28s FAILED: %s%n", rep + 1, reps, c.id(), ex.getMessage());
                }
            }
        }
        environment.finish();
        Files.createDirectories(out);
        final Report report = new Report(cases, results, failures, skipped, goals(), environment, smoke);
        Files.writeString(out.resolve("latest.md"), report.markdown());
        PercentileChart.write(out.resolve("latency-percentiles.png"), "Round-trip latency percentiles, the median of " +
            reps + " repetitions (" + (pin ? "server CPU 0, client CPU 1" : "not pinned") + ")", report.chartPanels());
        System.out.println(report.markdown());
        System.out.println("wrote " + out.resolve("latest.md") + " and " + out.resolve("latency-percentiles.png"));
        if (smoke)
        {
            final long failed = failures.size();
            final long passed = cases.size() - failed - skipped.size();
            System.out.println("smoke: " + passed + " cases ran, " + failed + " broke, " + skipped.size() + " left out");
            System.exit(failed == 0 ? 0 : 1);
        }
    }

    private static Map<String, String> options(final String[] args)
    {
        final Map<String, String> options = new LinkedHashMap<>();
        final List<String> words = new ArrayList<>();
        for (final String arg : args)
        {
            words.addAll(List.of(arg.trim().split("\\s+")));
        }
        words.removeIf(String::isEmpty);
        for (int i = 0; i < words.size(); i++)
        {
            final String word = words.get(i);
            if (!word.startsWith("--"))
            {
                throw new IllegalArgumentException("unexpected argument '" + word + "'");
            }
            final String key = word.substring(2);
            if (key.equals("smoke") || key.equals("jfr"))
            {
                options.put(key, "true");
            }
            else if (List.of("reps", "only", "out", "warmup-ms", "warmup-max-ms", "measure-ms").contains(key) && i + 1 < words.size())
            {
                options.put(key, words.get(++i));
            }
            else
            {
                throw new IllegalArgumentException("unknown or incomplete option '" + word + "'; known: --smoke, --jfr, " +
                    "--reps N, --only REGEX, --out DIR, --warmup-ms N, --warmup-max-ms N, --measure-ms N");
            }
        }
        return options;
    }

    private static final String LAT64 = "64 B, 1 outstanding";
    private static final String LAT4K = "4 KiB, 1 outstanding";
    private static final String LAT32 = "32 B, 1 outstanding (shared memory)";
    private static final String RATE64 = "64 B, 64 outstanding";
    private static final String RATE4K = "4 KiB, 64 outstanding";
    private static final String PACED64 = "64 B at 1,000 calls/s";
    private static final String BULK = "1 MiB transfers";
    private static final String STREAM64 = "64 B server stream, demand 1024";
    private static final String STREAM1M = "1 MiB server stream, demand 16";
    private static final String STREAM_ONE = "64 B server stream, the consumer asks for 1 message at a time";
    /** The shm case the 1 MiB bandwidth goals judge (a registered shared buffer's case, once there is one). */
    static final String SHM_1M_GOAL_CASE = "xio-shm-1m-registered";

    static List<Case> fullCases(final Workload.Timing t)
    {
        final List<Case> cases = new ArrayList<>();
        for (final int size : new int[] {64, 4 * KIB})
        {
            final String group = size == 64 ? LAT64 : LAT4K;
            final String s = size == 64 ? "64" : "4k";
            final Workload one = Workload.echo(size, 1, t);
            cases.add(new Case("spin-socket-" + s + "-lat", group, "spin-socket", "", one,
                "spinning NIO socket (the tcp floor)"));
            cases.add(new Case("raw-socket-" + s + "-lat", group, "raw-socket", "", one, "raw socket, blocking"));
            cases.add(new Case("netty-" + s + "-lat", group, "netty", "", one, "Netty epoll echo"));
            cases.add(new Case("grpc-" + s + "-lat", group, "grpc", "blocking", one, "gRPC blocking unary"));
            cases.add(new Case("qperf-" + s + "-lat", group, "qperf", "tcp_lat", one, "qperf tcp_lat (2 x mean one-way)"));
            cases.add(new Case("xio-tcp-" + s + "-lat-spin", group, "xio", "tcp,poll=spin", one, "xio tcp, spin, context"));
            if (size == 64)
            {
                cases.add(new Case("grpc-tls-64-lat", group, "grpc", "blocking,tls", one, "gRPC blocking unary, TLS 1.3"));
                cases.add(new Case("xio-tls-64-lat-spin", group, "xio", "tls,poll=spin", one,
                    "xio tls (TLS 1.3), spin, context"));
                cases.add(new Case("xio-tcp-64-lat-default", group, "xio", "tcp", one, "xio tcp, default poll, context"));
                cases.add(new Case("xio-tcp-64-lat-parked", group, "xio", "tcp,poll=parked", one, "xio tcp, parked, context"));
                cases.add(new Case("xio-tcp-64-lat-caller", group, "xio", "tcp,style=caller", one, "xio tcp, default poll, caller blocks"));
                cases.add(new Case("xio-tcp-64-lat-spin-trace", group, "xio", "tcp,poll=spin,traceparent", one,
                    "xio tcp, spin, context, a traceparent entry"));
            }
            cases.add(new Case("xio-shm-" + s + "-lat-spin", group, "xio", "shm,poll=spin", one, "xio shm, spin, context"));
            if (size == 64)
            {
                cases.add(new Case("xio-shm-64-lat-parked", group, "xio", "shm,poll=parked", one, "xio shm, parked, context"));
                cases.add(new Case("xio-shm-64-lat-spin-trace", group, "xio", "shm,poll=spin,traceparent", one,
                    "xio shm, spin, context, a traceparent entry"));
                cases.add(new Case("spring-64-lat", group, "spring", "", one, "xio Spring proxy, blocking method"));
            }
        }
        final Workload tiny = Workload.echo(32, 1, t);
        cases.add(new Case("aeron-32-lat", LAT32, "aeron", "", tiny, "Aeron IPC, spinning"));
        cases.add(new Case("xio-shm-32-lat-spin", LAT32, "xio", "shm,poll=spin", tiny, "xio shm, spin, context"));

        for (final int size : new int[] {64, 4 * KIB})
        {
            final String group = size == 64 ? RATE64 : RATE4K;
            final String s = size == 64 ? "64" : "4k";
            final Workload many = Workload.echo(size, 64, t);
            cases.add(new Case("grpc-" + s + "-rate", group, "grpc", "async", many, "gRPC async unary"));
            if (size == 64)
            {
                cases.add(new Case("netty-64-rate", group, "netty", "", many, "Netty epoll echo"));
                cases.add(new Case("grpc-tls-64-rate", group, "grpc", "async,tls", many, "gRPC async unary, TLS 1.3"));
                cases.add(new Case("xio-tls-64-rate", group, "xio", "tls", many, "xio tls (TLS 1.3), 1 context"));
            }
            cases.add(new Case("xio-tcp-" + s + "-rate", group, "xio", "tcp", many, "xio tcp, 1 context"));
            if (size == 64)
            {
                cases.add(new Case("xio-tcp-64-rate-ctx2", group, "xio", "tcp,ctx=2", many, "xio tcp, 2 contexts"));
                cases.add(new Case("xio-tcp-64-rate-recycled", group, "xio", "tcp,future=recycled,reuse=after", many,
                    "xio tcp, recycled future, AFTER_ANSWER service"));
            }
            cases.add(new Case("xio-shm-" + s + "-rate", group, "xio", "shm", many, "xio shm, 1 context"));
            if (size == 64)
            {
                for (int servers = 1; servers <= 3; servers++)
                {
                    cases.add(new Case("xio-cluster-" + servers + "-64-rate", group, "xio",
                        "tcp,cluster,servers=" + servers, many,
                        "xio tcp, a ServiceClient over " + servers + " server engine(s) of 1 context"));
                }
                cases.add(new Case("xio-shm-64-rate-ctx2", group, "xio", "shm,ctx=2", many, "xio shm, 2 contexts"));
                cases.add(new Case("spring-64-rate", group, "spring", "", many, "xio Spring proxy, async method"));
            }
        }

        final Workload paced = Workload.paced(64, 1000, t);
        for (final String transport : new String[] {"tcp", "shm"})
        {
            cases.add(new Case("xio-" + transport + "-64-paced-spin", PACED64, "xio", transport + ",poll=spin", paced,
                "xio " + transport + ", spin, paced from the main thread"));
            cases.add(new Case("xio-" + transport + "-64-paced-default", PACED64, "xio", transport, paced,
                "xio " + transport + ", default poll, paced from the main thread"));
        }

        final Workload bulk = Workload.transfer(MIB, 4, t);
        cases.add(new Case("memcpy-1m", BULK, "memcpy", "", Workload.transfer(MIB, 1, t),
            "memory bandwidth, ByteBuffer.put direct to direct (1 thread)"));
        cases.add(new Case("qperf-1m-bw", BULK, "qperf", "tcp_bw", Workload.transfer(MIB, 1, t), "qperf tcp_bw (streaming)"));
        cases.add(new Case("raw-socket-1m", BULK, "raw-socket", "", Workload.transfer(MIB, 1, t), "raw socket, 1 outstanding"));
        cases.add(new Case("grpc-1m", BULK, "grpc", "async", bulk, "gRPC async unary, 4 outstanding"));
        cases.add(new Case("grpc-tls-1m", BULK, "grpc", "async,tls", bulk, "gRPC async unary, TLS 1.3, 4 outstanding"));
        cases.add(new Case("xio-tcp-1m", BULK, "xio", "tcp", bulk, "xio tcp, 4 outstanding"));
        cases.add(new Case("xio-tls-1m", BULK, "xio", "tls", bulk, "xio tls (TLS 1.3), 4 outstanding"));
        cases.add(new Case("xio-shm-1m", BULK, "xio", "shm", bulk, "xio shm, 4 outstanding"));
        cases.add(new Case("xio-shm-1m-registered", BULK, "xio", "shm,shared", bulk,
            "xio shm, registered shared buffer, 4 outstanding"));
        cases.addAll(streamCases(t));
        return cases;
    }

    /**
     * Server streams, the same in the full run and the smoke run: 64 B messages as fast as the consumer takes them,
     * 1 MiB chunks, and a consumer that asks for one message at a time (what the producer holds against the window).
     */
    static List<Case> streamCases(final Workload.Timing t)
    {
        final Workload small = Workload.serverStream(64, 1024, t);
        final Workload chunks = Workload.serverStream(MIB, 16, t);
        final Workload one = Workload.serverStream(64, 1, t);
        final List<Case> cases = new ArrayList<>();
        for (final String transport : new String[] {"tcp", "shm", "local"})
        {
            cases.add(new Case("xio-" + transport + "-64-stream", STREAM64, "xio", transport + ",window=1m", small,
                "xio " + transport + " stream, window 1024 msgs / 1 MiB"));
        }
        // Aeron's publisher may run half its 4 MiB IPC term ahead of its subscriber: the same 2 MiB window for xio.
        cases.add(new Case("xio-shm-64-stream-wide", STREAM64, "xio", "shm,window=2m,messages=32768", small,
            "xio shm stream, window 32768 msgs / 2 MiB (Aeron's: half its IPC term)"));
        cases.add(new Case("grpc-64-stream", STREAM64, "grpc", "", small,
            "gRPC server streaming, manual flow control"));
        cases.add(new Case("rsocket-64-stream", STREAM64, "rsocket", "", small, "RSocket request-stream"));
        cases.add(new Case("aeron-64-stream", STREAM64, "aeron", "", small, "Aeron IPC stream (no demand)"));
        for (final String transport : new String[] {"tcp", "shm", "local"})
        {
            cases.add(new Case("xio-" + transport + "-1m-stream", STREAM1M, "xio", transport + ",window=8m", chunks,
                "xio " + transport + " stream, window 1024 msgs / 8 MiB"));
        }
        cases.add(new Case("xio-shm-1m-stream-shared", STREAM1M, "xio", "shm,window=8m,shared", chunks,
            "xio shm stream, window 1024 msgs / 8 MiB, chunks in a shared buffer (by reference)"));
        cases.add(new Case("grpc-1m-stream", STREAM1M, "grpc", "", chunks,
            "gRPC server streaming, manual flow control"));
        cases.add(new Case("rsocket-1m-stream", STREAM1M, "rsocket", "", chunks, "RSocket request-stream"));
        for (final String transport : new String[] {"tcp", "shm", "local"})
        {
            cases.add(new Case("xio-" + transport + "-64-stream-one", STREAM_ONE, "xio", transport + ",window=1m,held",
                one,
                "xio " + transport + " stream, request(1) each, window 1024 msgs / 1 MiB"));
        }
        cases.add(new Case("grpc-64-stream-one", STREAM_ONE, "grpc", "", one,
            "gRPC server streaming, request(1) each"));
        cases.add(new Case("rsocket-64-stream-one", STREAM_ONE, "rsocket", "", one,
            "RSocket request-stream, request(1) each"));
        return cases;
    }

    static List<Case> smokeCases(final Workload.Timing t)
    {
        final Workload one = Workload.echo(64, 1, t);
        final Workload eight = Workload.echo(64, 8, t);
        final List<Case> cases = new ArrayList<>(List.of(
            new Case("spin-socket-64-lat", LAT64, "spin-socket", "", one, "spinning NIO socket (the tcp floor)"),
            new Case("raw-socket-64-lat", LAT64, "raw-socket", "", one, "raw socket, blocking"),
            new Case("netty-64-lat", LAT64, "netty", "", one, "Netty epoll echo"),
            new Case("grpc-64-lat", LAT64, "grpc", "blocking", one, "gRPC blocking unary"),
            new Case("qperf-64-lat", LAT64, "qperf", "tcp_lat", one, "qperf tcp_lat (2 x mean one-way)"),
            new Case("xio-tcp-64-lat-spin", LAT64, "xio", "tcp,poll=spin", one, "xio tcp, spin, context"),
            new Case("xio-shm-64-lat-caller", LAT64, "xio", "shm,style=caller", one, "xio shm, caller blocks"),
            new Case("spring-64-lat", LAT64, "spring", "", one, "xio Spring proxy, blocking method"),
            new Case("aeron-32-lat", LAT32, "aeron", "", Workload.echo(32, 1, t), "Aeron IPC, spinning"),
            new Case("grpc-64-rate", RATE64, "grpc", "async", eight, "gRPC async unary"),
            new Case("xio-tcp-64-rate-ctx2", RATE64, "xio", "tcp,ctx=2", eight, "xio tcp, 2 contexts"),
            new Case("xio-tcp-64-paced-default", PACED64, "xio", "tcp", Workload.paced(64, 1000, t),
                "xio tcp, default poll, paced from the main thread"),
            new Case("memcpy-1m", BULK, "memcpy", "", Workload.transfer(MIB, 1, t),
                "memory bandwidth, ByteBuffer.put direct to direct (1 thread)"),
            new Case("xio-shm-1m", BULK, "xio", "shm", Workload.transfer(MIB, 4, t), "xio shm, 4 outstanding")));
        cases.addAll(streamCases(t));
        return cases;
    }

    /**
     * The goals of the performance work: the floors first (spinning socket, Aeron, memory bandwidth), then the paths
     * most users call (future API, Spring proxy), adaptive polling, and the older ratios to the peers.
     */
    static List<Goal> goals()
    {
        return List.of(
            new Goal("tcp, 64 B, 1 outstanding, spin: p50 <= 1.1x the spinning socket's", "xio-tcp-64-lat-spin",
                "spin-socket-64-lat", Figures.P50_US, 1.1, true),
            new Goal("tcp, 4 KiB, 1 outstanding, spin: p50 <= 1.1x the spinning socket's", "xio-tcp-4k-lat-spin",
                "spin-socket-4k-lat", Figures.P50_US, 1.1, true),
            new Goal("shm, 32 B, spin: p50 <= 1.5x Aeron IPC's", "xio-shm-32-lat-spin", "aeron-32-lat",
                Figures.P50_US, 1.5, true),
            new Goal("shm, 32 B, spin: p99.9 <= 3x Aeron IPC's", "xio-shm-32-lat-spin", "aeron-32-lat",
                Figures.P999_US, 3.0, true),
            new Goal("future API, recycled futures: <= 64 B allocated per call (both JVMs, tcp 64 B, 64 outstanding)",
                "xio-tcp-64-rate-recycled", null, Figures.ALLOC_B_PER_CALL, 64, true),
            new Goal("Spring proxy, async: <= 512 B allocated per call (both JVMs, 64 outstanding)", "spring-64-rate",
                null, Figures.ALLOC_B_PER_CALL, 512, true),
            new Goal("Spring proxy, blocking: <= 512 B allocated per call (both JVMs)", "spring-64-lat", null,
                Figures.ALLOC_B_PER_CALL, 512, true),
            new Goal("Spring proxy, async, 64 outstanding: >= 0.8x the engine's calls/s", "spring-64-rate",
                "xio-tcp-64-rate", Figures.CALLS_PER_S, 0.8, false),
            new Goal("Spring proxy, blocking: p50 <= 1.1x the engine's caller-blocks case", "spring-64-lat",
                "xio-tcp-64-lat-caller", Figures.P50_US, 1.1, true),
            new Goal("tcp, 1,000 calls/s, default poll: p50 <= 1.5x spin's", "xio-tcp-64-paced-default",
                "xio-tcp-64-paced-spin", Figures.P50_US, 1.5, true),
            new Goal("tcp, 1,000 calls/s, default poll: CPU <= 15 % of a core, busier side", "xio-tcp-64-paced-default",
                null, Figures.MAX_SIDE_CPU_PCT, 15, true),
            new Goal("shm, 1,000 calls/s, default poll: p50 <= 1.5x spin's", "xio-shm-64-paced-default",
                "xio-shm-64-paced-spin", Figures.P50_US, 1.5, true),
            new Goal("shm, 1,000 calls/s, default poll: CPU <= 15 % of a core, busier side", "xio-shm-64-paced-default",
                null, Figures.MAX_SIDE_CPU_PCT, 15, true),
            new Goal("shm, 1 MiB: >= 0.7x single-thread memory bandwidth", SHM_1M_GOAL_CASE, "memcpy-1m",
                Figures.MIB_PER_S, 0.7, false),
            new Goal("shm, 1 MiB: >= 3x tcp", SHM_1M_GOAL_CASE, "xio-tcp-1m", Figures.MIB_PER_S, 3.0, false),
            new Goal("tcp, 64 B, 1 outstanding: p50 <= 1/3 of gRPC-java's", "xio-tcp-64-lat-spin", "grpc-64-lat",
                Figures.P50_US, 1 / 3.0, true),
            new Goal("tcp, 64 B, 64 outstanding: >= 5x gRPC-java async calls/s", "xio-tcp-64-rate", "grpc-64-rate",
                Figures.CALLS_PER_S, 5.0, false),
            new Goal("tcp, 1 MiB: >= 0.9x qperf tcp_bw", "xio-tcp-1m", "qperf-1m-bw", Figures.MIB_PER_S, 0.9, false),
            new Goal("stream, tcp, 64 B: >= 5x gRPC-java server streaming's messages/s", "xio-tcp-64-stream",
                "grpc-64-stream", Figures.CALLS_PER_S, 5.0, false),
            new Goal("stream, tcp, 64 B: >= 2x RSocket request-stream's messages/s", "xio-tcp-64-stream",
                "rsocket-64-stream", Figures.CALLS_PER_S, 2.0, false),
            new Goal("stream, shm, 64 B: >= 0.3x Aeron IPC's messages/s", "xio-shm-64-stream", "aeron-64-stream",
                Figures.CALLS_PER_S, 0.3, false),
            new Goal("stream, tcp, 64 B: <= 16 B allocated per message (both JVMs)", "xio-tcp-64-stream", null,
                Figures.ALLOC_B_PER_CALL, 16, true),
            new Goal("stream, shm, 64 B: <= 16 B allocated per message (both JVMs)", "xio-shm-64-stream", null,
                Figures.ALLOC_B_PER_CALL, 16, true),
            new Goal("stream, local, 64 B: <= 16 B allocated per message (one JVM)", "xio-local-64-stream", null,
                Figures.ALLOC_B_PER_CALL, 16, true),
            new Goal("stream, tcp, request(1) each: the producer holds <= its window of 1024 messages",
                "xio-tcp-64-stream-one", null, Figures.HELD_PEAK, StreamLimits.DEFAULT.windowMessages(), true),
            new Goal("stream, shm, request(1) each: the producer holds <= its window of 1024 messages",
                "xio-shm-64-stream-one", null, Figures.HELD_PEAK, StreamLimits.DEFAULT.windowMessages(), true),
            new Goal("stream, local, request(1) each: the producer holds <= its window of 1024 messages",
                "xio-local-64-stream-one", null, Figures.HELD_PEAK, StreamLimits.DEFAULT.windowMessages(), true));
    }
}
