package io.xio.benchmarks.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;

/** Where and how a comparison ran: the facts that make its figures reproducible or explain their noise. */
final class Environment
{
    final String arguments;
    final boolean pinned;
    final int repetitions;
    final Workload.Timing timing;
    final Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    final String cpu = cpuModel();
    final int processors = Runtime.getRuntime().availableProcessors();
    final String kernel = System.getProperty("os.version");
    final String java = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
    final String commit = gitCommit();
    final String loadBefore = loadAverage();
    String loadAfter;
    long minutes;

    private Environment(final String arguments, final boolean pinned, final int repetitions,
        final Workload.Timing timing)
    {
        this.arguments = arguments;
        this.pinned = pinned;
        this.repetitions = repetitions;
        this.timing = timing;
    }

    static Environment capture(final String arguments, final boolean pinned, final int repetitions,
        final Workload.Timing timing)
    {
        return new Environment(arguments, pinned, repetitions, timing);
    }

    void finish()
    {
        loadAfter = loadAverage();
        minutes = Math.round((Instant.now().getEpochSecond() - started.getEpochSecond()) / 60.0);
    }

    private static String cpuModel()
    {
        try
        {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    private static String loadAverage()
    {
        try
        {
            final String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    private static String gitCommit()
    {
        try
        {
            final Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            final String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 ? out : "unknown";
        }
        catch (final IOException | InterruptedException ex)
        {
            return "unknown";
        }
    }
}
