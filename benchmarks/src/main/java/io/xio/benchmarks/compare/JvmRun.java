package io.xio.benchmarks.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run of one case in two fresh JVMs, the server pinned to CPU 0 and the client to CPU 1 (when pinning is
 * possible): starts the server, hands its address to the client, samples both processes' CPU time and the
 * server's allocations when the client opens and closes its window, and stops both. Logs (stderr, and stdout
 * lines that are not protocol) and, when asked, JFR recordings of both JVMs go to {@code logDir}.
 */
final class JvmRun
{
    private static final long START_TIMEOUT_MS = 120_000;

    private JvmRun()
    {
    }

    static Figures run(final Case c, final boolean pin, final boolean jfr, final Path logDir, final String tag)
        throws Exception
    {
        final Peer peer = PeerMain.peer(c.peer());
        final String workload = c.workload().toArg();
        final Path serverJfr = jfr ? logDir.resolve(tag + "-server.jfr") : null;
        final Path clientJfr = jfr ? logDir.resolve(tag + "-client.jfr") : null;
        final Child server = Child.start(command(peer, pin, 0, serverJfr, "serve", c.peer(), c.variant(), workload),
            logDir.resolve(tag + "-server.log"));
        try
        {
            final String address = server.await("ADDRESS ", START_TIMEOUT_MS).substring("ADDRESS ".length());
            final Child client = Child.start(command(peer, pin, 1, clientJfr, "client", c.peer(), c.variant(), address,
                    workload),
                logDir.resolve(tag + "-client.log"));
            try
            {
                client.await("START", c.workload().warmupMaxMillis() + START_TIMEOUT_MS);
                final long serverBefore = ProcessCpu.ticks(server.process.pid());
                final long clientBefore = ProcessCpu.ticks(client.process.pid());
                final long allocBefore = server.stats();
                final String result = client.await(Measurement.PREFIX, c.workload().measureMillis() + START_TIMEOUT_MS);
                final long serverAfter = ProcessCpu.ticks(server.process.pid());
                final long clientAfter = ProcessCpu.ticks(client.process.pid());
                final long allocAfter = server.stats();
                return Figures.of(c.workload(), Measurement.parse(result), cpuSeconds(serverBefore, serverAfter),
                    cpuSeconds(clientBefore, clientAfter), allocBefore < 0 || allocAfter < 0 ? -1 : allocAfter - allocBefore);
            }
            finally
            {
                client.stop();
            }
        }
        finally
        {
            server.stop();
        }
    }

    /** CPU seconds between two samples of one process; -1 where either was unreadable. */
    private static double cpuSeconds(final long before, final long after)
    {
        return before < 0 || after < 0 ? -1 : ProcessCpu.seconds(after - before);
    }

    private static List<String> command(final Peer peer, final boolean pin, final int cpu, final Path jfr,
        final String... args)
    {
        final List<String> command = new ArrayList<>();
        if (pin)
        {
            command.addAll(List.of("taskset", "-c", String.valueOf(cpu)));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        if (jfr != null)
        {
            // the whole run, warm-up included: filter samples by time when reading them
            command.add("-XX:StartFlightRecording=settings=profile,filename=" + jfr.toAbsolutePath());
        }
        command.addAll(peer.jvmOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), PeerMain.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /** A child JVM whose stdout lines arrive on a queue, so every wait has a timeout. */
    private static final class Child
    {
        private final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final Path log;

        private Child(final Process process, final Path log)
        {
            this.process = process;
            this.log = log;
        }

        static Child start(final List<String> command, final Path log) throws IOException
        {
            Files.createDirectories(log.getParent());
            final Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            final Child child = new Child(process, log);
            final Thread pump = new Thread(() ->
            {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8)))
                {
                    for (String line = out.readLine(); line != null; line = out.readLine())
                    {
                        child.lines.add(line);
                    }
                }
                catch (final IOException ex)
                {
                    // the process ended
                }
            }, "stdout-" + log.getFileName());
            pump.setDaemon(true);
            pump.start();
            return child;
        }

        /** The next stdout line starting with {@code prefix}; other lines are logged and skipped. */
        String await(final String prefix, final long timeoutMillis) throws Exception
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (true)
            {
                final String line = lines.poll(10, TimeUnit.MILLISECONDS);
                if (line != null && line.startsWith(prefix))
                {
                    return line;
                }
                if (line != null)
                {
                    Files.writeString(log, "[stdout] " + line + System.lineSeparator(), StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.CREATE);
                    continue;
                }
                if (!process.isAlive() && lines.isEmpty())
                {
                    throw new IllegalStateException("process exited with " + process.exitValue() + " before '" +
                        prefix.trim() + "'; last lines of " + log + ":\n" + tail());
                }
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("no '" + prefix.trim() + "' within " + timeoutMillis + " ms; last " +
                        "lines of " + log + ":\n" + tail());
                }
            }
        }

        /** Asks a server for its allocated bytes. */
        long stats() throws Exception
        {
            final OutputStream in = process.getOutputStream();
            in.write("stats\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
            return Long.parseLong(await("STATS ", 10_000).substring("STATS ".length()).trim());
        }

        void stop() throws InterruptedException
        {
            try
            {
                process.getOutputStream().close();
            }
            catch (final IOException ex)
            {
                // already gone
            }
            if (!process.waitFor(15, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }

        private String tail()
        {
            try
            {
                final List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
                return String.join("\n", all.subList(Math.max(0, all.size() - 15), all.size()));
            }
            catch (final IOException ex)
            {
                return "(no log: " + ex.getMessage() + ")";
            }
        }
    }
}
