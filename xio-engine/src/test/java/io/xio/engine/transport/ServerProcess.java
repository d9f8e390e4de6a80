package io.xio.engine.transport;

import io.xio.engine.ContextFailurePolicy;
import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.RequestHandler;
import io.xio.engine.RequestReuse;
import io.xio.engine.SessionEvent;
import io.xio.engine.XioEngine;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A server in a JVM of its own, for tests where the peer process dies and for latency benchmarks: binds the URI
 * it is given, serves "echo", "echo-reuse" (the same, allocation-free: {@link RequestReuse#AFTER_ANSWER}), "hold"
 * (never answers) and "hog" (fills the heap on the context thread until it runs out), prints
 * {@code READY <portal uri>}, and runs until killed or its standard input closes. Its one context busy-polls for
 * {@code -Dxio.server.busyPollMillis} (default 0) before parking; {@code -Dxio.server.onContextFailure} sets its
 * {@link ContextFailurePolicy}. Should its engine close itself, it prints {@code ENGINE CLOSED <cause>} and exits
 * with {@link #ENGINE_CLOSED}. {@link #start} launches it and waits for the READY line; what it prints later is
 * kept for {@link #output}.
 */
public final class ServerProcess implements AutoCloseable
{
    /** The exit code of a server whose engine closed itself. */
    public static final int ENGINE_CLOSED = 3;

    private final Process process;
    private final String uri;
    private final StringBuffer output = new StringBuffer();

    private ServerProcess(final Process process, final String uri, final BufferedReader out)
    {
        this.process = process;
        this.uri = uri;
        // Read on, so that a server that logs a lot never blocks on a full pipe; ends with the process.
        final Thread drain = new Thread(() ->
        {
            try
            {
                String line;
                while ((line = out.readLine()) != null)
                {
                    output.append(line).append('\n');
                }
            }
            catch (final IOException ex)
            {
                // the process is gone
            }
        }, "server-process-output");
        drain.setDaemon(true);
        drain.start();
    }

    /**
     * Starts the server on {@code bindUri} with extra JVM options; fails with what it printed if it never got ready.
     */
    public static ServerProcess start(final String bindUri, final String... jvmOptions) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ServerProcess.class.getName(), bindUri));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8));
        final StringBuilder log = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("READY "))
        {
            log.append(line).append('\n');
        }
        if (line == null)
        {
            process.destroyForcibly();
            throw new IllegalStateException("the server process ended before it was ready; it printed:\n" + log);
        }
        return new ServerProcess(process, line.substring("READY ".length()), out);
    }

    /** The portal the server bound, with its real port. */
    public String uri()
    {
        return uri;
    }

    /** What the server printed after its READY line, so far. */
    public String output()
    {
        return output.toString();
    }

    /** The exit code once the process ended within {@code timeout}; empty while it still runs. */
    public Optional<Integer> exitCode(final Duration timeout) throws InterruptedException
    {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Optional.of(process.exitValue()) :
            Optional.empty();
    }

    public boolean isAlive()
    {
        return process.isAlive();
    }

    /** Kills the process as {@code kill -9} would; true once it is gone. */
    public boolean kill() throws InterruptedException
    {
        process.destroyForcibly();
        return process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Stops the server the polite way (its standard input closes, so its JVM exits normally), else kills it. */
    @Override
    public void close() throws InterruptedException
    {
        try
        {
            process.getOutputStream().close();
        }
        catch (final IOException ex)
        {
            // gone already
        }
        if (!process.waitFor(5, TimeUnit.SECONDS))
        {
            kill();
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final ConcurrentLinkedQueue<InboundRequest> held = new ConcurrentLinkedQueue<>();
        final Duration busyPoll = Duration.ofMillis(Long.getLong("xio.server.busyPollMillis", 0));
        final ContextFailurePolicy policy = ContextFailurePolicy.valueOf(System.getProperty(
            "xio.server.onContextFailure", ContextFailurePolicy.CLOSE_ENGINE.name()));
        try (XioEngine engine = XioEngine.builder().name("child").contexts(1).busyPoll(busyPoll)
            .onContextFailure(policy).sessionListener(ServerProcess::printContextFailure).build())
        {
            engine.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            engine.register("echo-reuse", new ReusingEcho(), RequestReuse.AFTER_ANSWER);
            engine.register("hold", request ->
            {
                request.message().close();
                held.add(request);
            });
            engine.register("hog", request ->
            {
                request.message().close();
                final java.util.List<long[]> hoard = new java.util.ArrayList<>();
                while (true)
                {
                    hoard.add(new long[1 << 16]); // 512 KiB a time, until the heap is gone
                }
            });
            final Portal portal = engine.bind(args[0]);
            final Thread watch = new Thread(() -> exitOnceClosed(engine), "engine-watch");
            watch.setDaemon(true);
            watch.start();
            System.out.println("READY " + portal.uri());
            System.out.flush();
            while (System.in.read() >= 0)
            {
                Thread.onSpinWait(); // the parent closes our stdin to stop us
            }
        }
    }

    private static void printContextFailure(final SessionEvent event)
    {
        if (event.type() == SessionEvent.Type.CONTEXT_FAILED)
        {
            System.out.println("CONTEXT FAILED " + event.detail());
            System.out.flush();
        }
    }

    private static void exitOnceClosed(final XioEngine engine)
    {
        while (engine.isOpen())
        {
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
        if (engine.failedContexts().isEmpty())
        {
            return; // closed the ordinary way, as main ends
        }
        System.out.println("ENGINE CLOSED " + engine.failedContexts().stream()
            .map(context -> context.name() + " failed: " + context.failure()).toList());
        System.out.flush();
        System.exit(ENGINE_CLOSED);
    }

    /**
     * An echo that allocates nothing: copies the request header into a pooled direct buffer, closes the request
     * and answers from the pool; a buffer comes back once xio wrote the answer. Context thread only (where the
     * write completes too), so the pool needs no lock.
     */
    private static final class ReusingEcho implements RequestHandler
    {
        private final ArrayDeque<Reply> idle = new ArrayDeque<>();

        @Override
        public void onRequest(final InboundRequest request)
        {
            Reply reply = idle.pollFirst();
            if (reply == null)
            {
                reply = new Reply();
            }
            final Message message = request.message();
            final int length = message.headerLength();
            reply.fit(length);
            message.buffer().getBytes(message.headerOffset(), reply.buffer, 0, length);
            message.close();
            reply.buffer.clear().limit(length);
            request.respond(reply.outbound.releaseAfterSend(reply));
        }

        private final class Reply implements AutoCloseable
        {
            private ByteBuffer buffer = ByteBuffer.allocateDirect(64);
            private Outbound outbound = Outbound.of(buffer);

            void fit(final int length)
            {
                if (buffer.capacity() < length)
                {
                    buffer = ByteBuffer.allocateDirect(length);
                    outbound = Outbound.of(buffer);
                }
            }

            @Override
            public void close()
            {
                idle.addFirst(this);
            }
        }
    }
}
