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

/**
 * One {@link LedgerServerMain} in a process of its own, started with this JVM's java and class path, on a fixed port
 * so that a restart takes the place of the process before it. Its output is copied to this one's, each line after
 * its name. {@link #kill()} is SIGKILL ({@link Process#destroyForcibly()} on Linux); {@link #stop()} closes its
 * standard input, which stops it cleanly, and kills it if it does not exit. Used by the test's thread only.
 */
final class ServerProcess
{
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    /** The exit status of a process that SIGKILL (9) ended: 128 + 9. */
    private static final int KILLED_BY_SIGKILL = 137;

    private final String name;
    private final int port;
    private final String jdbcUrl;
    private final boolean ledger;
    private Process process;
    private Thread output;
    private int starts;

    ServerProcess(final String name, final int port, final String jdbcUrl, final boolean ledger)
    {
        this.name = name;
        this.port = port;
        this.jdbcUrl = jdbcUrl;
        this.ledger = ledger;
    }

    String name()
    {
        return name;
    }

    int port()
    {
        return port;
    }

    /** Starts the process and returns once it printed that its portal listens. */
    void start() throws IOException, InterruptedException
    {
        if (process != null && process.isAlive())
        {
            throw new IllegalStateException(name + " runs already");
        }
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp", System.getProperty("java.class.path"),
            LedgerServerMain.class.getName(), name, Integer.toString(port), jdbcUrl, ledger ? "ledger" : "plain"));
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        starts++;
        final CountDownLatch ready = new CountDownLatch(1);
        final Process started = process;
        final String label = "[" + name + "#" + starts + "] ";
        output = new Thread(() -> copyOutput(started, label, ready), name + "-output");
        output.setDaemon(true);
        output.start();
        if (!ready.await(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
        {
            final boolean alive = process.isAlive();
            kill();
            throw new IllegalStateException(name + " did not say it was ready within " + READY_TIMEOUT +
                (alive ? "" : " (it exited with " + process.exitValue() + ")"));
        }
    }

    /** SIGKILL: no shutdown hook, no close of its sessions or its transactions, as when a machine dies. */
    void kill() throws InterruptedException
    {
        if (process == null)
        {
            return;
        }
        final boolean alive = process.isAlive();
        process.destroyForcibly();
        if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
        {
            throw new IllegalStateException(name + " (pid " + process.pid() + ") outlived SIGKILL");
        }
        output.join(STOP_TIMEOUT.toMillis());
        if (alive && process.exitValue() != KILLED_BY_SIGKILL)
        {
            throw new IllegalStateException(name + " exited with " + process.exitValue() + ", not by SIGKILL");
        }
    }

    /** Closes its standard input, which makes it stop cleanly; kills it when it does not exit in time. */
    void stop() throws InterruptedException
    {
        if (process == null || !process.isAlive())
        {
            return;
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
            process.destroyForcibly(); // a no-op once it exited; never left behind, interrupted or not
        }
        kill();
    }

    private static void copyOutput(final Process process, final String label, final CountDownLatch ready)
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                System.out.println(label + line);
                if (line.startsWith(LedgerServerMain.READY + " "))
                {
                    ready.countDown();
                }
            }
        }
        catch (final IOException ex)
        {
            // The process died: its output ends here.
        }
    }

    @Override
    public String toString()
    {
        return name + " on 127.0.0.1:" + port + (process == null ? "" : " (pid " + process.pid() + ")");
    }
}
