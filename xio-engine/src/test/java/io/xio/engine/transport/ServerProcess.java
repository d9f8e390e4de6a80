package io.xio.engine.transport;

import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.RequestHandler;
import io.xio.engine.RequestReuse;
import io.xio.engine.XioEngine;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A server in a JVM of its own, for tests where the peer process dies and for latency benchmarks: binds the URI
 * it is given, serves "echo", "echo-reuse" (the same, allocation-free: {@link RequestReuse#AFTER_ANSWER}) and
 * "hold" (never answers), prints {@code READY <portal uri>}, and runs until killed or its standard input closes.
 * Its one context busy-polls for {@code -Dxio.server.busyPollMillis} (default 0) before parking. {@link #start}
 * launches it and waits for that line.
 */
public final class ServerProcess implements AutoCloseable
{
    private final Process process;
    private final String uri;

    private ServerProcess(final Process process, final String uri)
    {
        this.process = process;
        this.uri = uri;
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
        return new ServerProcess(process, line.substring("READY ".length()));
    }

    /** The portal the server bound, with its real port. */
    public String uri()
    {
        return uri;
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
        try (XioEngine engine = XioEngine.builder().name("child").contexts(1).busyPoll(busyPoll).build())
        {
            engine.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            engine.register("echo-reuse", new ReusingEcho(), RequestReuse.AFTER_ANSWER);
            engine.register("hold", request ->
            {
                request.message().close();
                held.add(request);
            });
            final Portal portal = engine.bind(args[0]);
            System.out.println("READY " + portal.uri());
            System.out.flush();
            while (System.in.read() >= 0)
            {
                Thread.onSpinWait(); // the parent closes our stdin to stop us
            }
        }
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
