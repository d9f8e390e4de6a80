package io.xio.benchmarks.compare;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's {@code qperf} as the loopback's limit: {@code tcp_lat} (qperf reports the mean one-way latency; the
 * report shows twice that as the round trip) and {@code tcp_bw} (bandwidth, and CPU cost per byte as qperf
 * measures it). Server on CPU 0, client on CPU 1, like the JVM runs.
 */
final class Qperf
{
    private static final Pattern FIELD = Pattern.compile("^\\s*(\\w+)\\s*=\\s*([0-9.,]+)\\s*(\\S+)", Pattern.MULTILINE);

    private Qperf()
    {
    }

    /** Null when qperf can run, else why not; installs it with apt-get when allowed and missing. */
    static String unavailableReason(final boolean mayInstall)
    {
        if (onPath())
        {
            return null;
        }
        if (!mayInstall)
        {
            return "qperf is not installed (apt-get install qperf)";
        }
        try
        {
            final Process install = new ProcessBuilder("sh", "-c",
                "(apt-get install -y -qq qperf || (apt-get update -qq && apt-get install -y -qq qperf)) 2>&1")
                .redirectErrorStream(true).start();
            final String output = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!install.waitFor(5, TimeUnit.MINUTES) || install.exitValue() != 0 || !onPath())
            {
                return "qperf is not installed and apt-get could not install it: " +
                    output.lines().reduce((a, b) -> b).orElse("no output");
            }
            return null;
        }
        catch (final IOException | InterruptedException ex)
        {
            return "qperf is not installed and apt-get could not run: " + ex.getMessage();
        }
    }

    private static boolean onPath()
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":"))
        {
            if (Files.isExecutable(Path.of(dir, "qperf")))
            {
                return true;
            }
        }
        return false;
    }

    static Figures run(final Case c, final boolean pin, final Path logDir, final String tag) throws Exception
    {
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = probe.getLocalPort();
        }
        final Path serverLog = logDir.resolve(tag + "-server.log");
        Files.createDirectories(logDir);
        final Process server = new ProcessBuilder(command(pin, 0, "--listen_port", String.valueOf(port)))
            .redirectErrorStream(true).redirectOutput(serverLog.toFile()).start();
        try
        {
            Thread.sleep(300); // qperf's server says nothing when it is ready
            final long seconds = Math.max(1, Math.round(c.workload().measureMillis() / 1000.0));
            final List<String> client = command(pin, 1, "127.0.0.1", "--listen_port", String.valueOf(port),
                "-t", String.valueOf(seconds), "-m", String.valueOf(c.workload().requestBytes()), "-v", c.variant());
            final Process run = new ProcessBuilder(client).redirectErrorStream(true).start();
            final String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!run.waitFor(seconds + 30, TimeUnit.SECONDS) || run.exitValue() != 0)
            {
                throw new IllegalStateException("qperf " + c.variant() + " failed: " + output.strip());
            }
            Files.writeString(logDir.resolve(tag + "-client.log"), output);
            return figures(c, output);
        }
        finally
        {
            server.destroy();
            if (!server.waitFor(5, TimeUnit.SECONDS))
            {
                server.destroyForcibly();
            }
        }
    }

    private static List<String> command(final boolean pin, final int cpu, final String... args)
    {
        final List<String> command = new ArrayList<>();
        if (pin)
        {
            command.addAll(List.of("taskset", "-c", String.valueOf(cpu)));
        }
        command.add("qperf");
        command.addAll(List.of(args));
        return command;
    }

    static Figures figures(final Case c, final String output)
    {
        final double[] v = new double[Figures.COUNT];
        java.util.Arrays.fill(v, Double.NaN);
        final Matcher m = FIELD.matcher(output);
        double sendCost = Double.NaN;
        double recvCost = Double.NaN;
        while (m.find())
        {
            final double value = Double.parseDouble(m.group(2).replace(",", ""));
            final String unit = m.group(3);
            switch (m.group(1))
            {
                case "latency" -> v[Figures.P50_US] = 2 * value * perMicro(unit);
                case "msg_rate" -> v[Figures.CALLS_PER_S] = value * (unit.startsWith("K") ? 1e3 : unit.startsWith("M") ? 1e6 : 1);
                case "bw" -> v[Figures.MIB_PER_S] = value * perByte(unit) / (1024.0 * 1024);
                case "send_cost" -> sendCost = value * perSecond(unit);
                case "recv_cost" -> recvCost = value * perSecond(unit);
                default ->
                {
                }
            }
        }
        // qperf's costs are seconds of CPU per GB (10^9 bytes) on each side
        v[Figures.CPU_S_PER_GIB] = (sendCost + recvCost) * Figures.GIB / 1e9;
        if (c.variant().equals("tcp_lat") && Double.isNaN(v[Figures.P50_US]) ||
            c.variant().equals("tcp_bw") && Double.isNaN(v[Figures.MIB_PER_S]))
        {
            throw new IllegalStateException("unreadable qperf output: " + output.strip());
        }
        if (c.variant().equals("tcp_lat"))
        {
            v[Figures.CALLS_PER_S] = 1e6 / v[Figures.P50_US];
        }
        return new Figures(v, null);
    }

    private static double perMicro(final String unit)
    {
        return switch (unit)
        {
            case "ns" -> 1e-3;
            case "us" -> 1;
            case "ms" -> 1e3;
            case "sec" -> 1e6;
            default -> throw new IllegalStateException("unknown qperf time unit " + unit);
        };
    }

    private static double perByte(final String unit)
    {
        return switch (unit.toUpperCase(Locale.ROOT))
        {
            case "BYTES/SEC" -> 1;
            case "KB/SEC" -> 1e3;
            case "MB/SEC" -> 1e6;
            case "GB/SEC" -> 1e9;
            default -> throw new IllegalStateException("unknown qperf bandwidth unit " + unit);
        };
    }

    private static double perSecond(final String unit)
    {
        return switch (unit)
        {
            case "ns/GB" -> 1e-9;
            case "us/GB" -> 1e-6;
            case "ms/GB" -> 1e-3;
            case "sec/GB" -> 1;
            default -> throw new IllegalStateException("unknown qperf cost unit " + unit);
        };
    }
}
