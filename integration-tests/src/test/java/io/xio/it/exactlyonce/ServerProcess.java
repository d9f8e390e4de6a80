package io.xio.it.exactlyonce;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@link LedgerServerMain} in a process of its own, started with this JVM's java and class path and the JVM flags
 * the build gives its test JVMs for this JDK (system property {@value #JDK_ARG_LINE}); each start listens on a fresh
 * port, which {@link #port()} gives once it is ready. Its output is copied to this one's, each line after its name,
 * and what it counted is read from its stop line ({@link #counts()}). {@link #kill()} is SIGKILL
 * ({@link Process#destroyForcibly()} on Linux) of a running server; {@link #stop()} closes its standard input, which
 * stops it cleanly, and kills it if it does not exit. A server that exited by itself fails the next of them. Used by
 * the test's thread only.
 */
final class ServerProcess
{
    /** The system property (Failsafe's, from the build's {@code xio.jdk.argLine}) with this JDK's flags for tests. */
    static final String JDK_ARG_LINE = "xio.it.jdkArgLine";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    /** The exit status of a process that SIGKILL (9) ended: 128 + 9. */
    private static final int KILLED_BY_SIGKILL = 137;
    /** The last lines of a start's output that a failure to start quotes. */
    private static final int QUOTED_LINES = 40;
    private static final Pattern READY_LINE = Pattern.compile("^" + LedgerServerMain.READY +
        " \\S+ on 127\\.0\\.0\\.1:(\\d+) ");

    private final String name;
    private final String jdbcUrl;
    private final boolean ledger;
    private final AtomicReference<ServerCounts> counts = new AtomicReference<>(ServerCounts.NONE);
    private Process process;
    private Thread output;
    private int port = -1;
    private int starts;

    ServerProcess(final String name, final String jdbcUrl, final boolean ledger)
    {
        this.name = name;
        this.jdbcUrl = jdbcUrl;
        this.ledger = ledger;
    }

    String name()
    {
        return name;
    }

    /** The port its latest start listens on. */
    int port()
    {
        if (port < 0)
        {
            throw new IllegalStateException(name + " never started");
        }
        return port;
    }

    /** What its processes counted, summed over those that stopped cleanly (a killed one's counts are lost). */
    ServerCounts counts()
    {
        return counts.get();
    }

    /**
     * Starts the process and returns once it printed that its portal listens; fails at once, quoting its output, when
     * it exits before.
     */
    void start() throws IOException, InterruptedException
    {
        if (process != null)
        {
            throw new IllegalStateException(name + " runs already");
        }
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        final String jdkFlags = System.getProperty(JDK_ARG_LINE, "").trim();
        if (!jdkFlags.isEmpty())
        {
            command.addAll(List.of(jdkFlags.split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), LedgerServerMain.class.getName(), name,
            jdbcUrl, ledger ? "ledger" : "plain"));
        final Process started = new ProcessBuilder(command).redirectErrorStream(true).start();
        process = started;
        starts++;
        final Start start = new Start();
        final String label = "[" + name + "#" + starts + "] ";
        output = new Thread(() -> copyOutput(started, label, start), name + "-output");
        output.setDaemon(true);
        output.start();
        final boolean said = start.said.await(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!said || start.port < 0)
        {
            destroy();
            throw new IllegalStateException(name + (said ? " exited with " + started.exitValue() +
                " before it was ready" : " did not say it was ready within " + READY_TIMEOUT + ": killed") +
                "; its output ended:\n" + String.join("\n", start.lines()));
        }
        port = start.port;
    }

    /**
     * SIGKILL: no shutdown hook, no close of its sessions or its transactions, as when a machine dies. Fails if it
     * was not running, or ended otherwise.
     */
    void kill() throws InterruptedException
    {
        if (process == null || !process.isAlive())
        {
            throw new IllegalStateException(name + " was not running when it was to be killed" + exitedSo());
        }
        final Process killed = process;
        destroy();
        if (killed.exitValue() != KILLED_BY_SIGKILL)
        {
            throw new IllegalStateException(name + " exited with " + killed.exitValue() + ", not by SIGKILL");
        }
    }

    /**
     * Closes its standard input, which makes it stop cleanly; kills it when it does not exit in time. Fails if it
     * had exited by itself.
     */
    void stop() throws InterruptedException
    {
        if (process == null)
        {
            return;
        }
        if (!process.isAlive())
        {
            final String exited = exitedSo();
            destroy();
            throw new IllegalStateException(name + " had ended by itself before it was stopped" + exited);
        }
        try
        {
            process.getOutputStream().close();
        }
        catch (final IOException ex)
        {
            // Its end of the pipe is gone already: it is exiting.
        }
        try
        {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
            {
                System.out.println("[" + name + "] did not stop within " + STOP_TIMEOUT + ": killed");
            }
        }
        finally
        {
            destroy(); // a no-op once it exited; never left behind, interrupted or not
        }
    }

    private String exitedSo()
    {
        return process == null ? "" : " (it exited with " + process.exitValue() + ")";
    }

    /** Kills the process if it runs, waits for it and for the end of its output, and forgets it. */
    private void destroy() throws InterruptedException
    {
        final Process ending = process;
        process = null;
        if (ending == null)
        {
            return;
        }
        ending.destroyForcibly();
        if (!ending.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
        {
            throw new IllegalStateException(name + " (pid " + ending.pid() + ") outlived SIGKILL");
        }
        output.join(STOP_TIMEOUT.toMillis());
    }

    private void copyOutput(final Process from, final String label, final Start start)
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(from.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                System.out.println(label + line);
                start.saw(line);
                final ServerCounts counted = ServerCounts.parse(line);
                if (counted != null)
                {
                    counts.accumulateAndGet(counted, ServerCounts::plus);
                }
            }
        }
        catch (final IOException ex)
        {
            // The process died: its output ends here.
        }
        finally
        {
            start.said.countDown(); // an end before the ready line fails the start at once
        }
    }

    @Override
    public String toString()
    {
        return name + (port < 0 ? "" : " on 127.0.0.1:" + port) + (process == null ? "" : " (pid " + process.pid() +
            ")");
    }

    /** One start's progress: its output's first lines, until it says it is ready (or its output ends). */
    private static final class Start
    {
        final CountDownLatch said = new CountDownLatch(1);
        private final List<String> lines = new ArrayList<>();
        volatile int port = -1;

        void saw(final String line)
        {
            if (said.getCount() == 0)
            {
                return;
            }
            synchronized (lines)
            {
                lines.add(line);
                if (lines.size() > QUOTED_LINES)
                {
                    lines.remove(0);
                }
            }
            final Matcher ready = READY_LINE.matcher(line);
            if (ready.find())
            {
                port = Integer.parseInt(ready.group(1));
                said.countDown();
            }
        }

        List<String> lines()
        {
            synchronized (lines)
            {
                return List.copyOf(lines);
            }
        }
    }
}
