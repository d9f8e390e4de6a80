package io.xio.engine.transport.shm;

import io.xio.engine.InboundRequest;
import io.xio.engine.Outbound;
import io.xio.engine.XioEngine;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A server in a process of its own for the shm tests: binds {@code shm://<name>}, serves "echo" and "hold"
 * (never answers), prints READY, and runs until killed or its standard input closes.
 */
public final class ShmServerMain
{
    private ShmServerMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final ConcurrentLinkedQueue<InboundRequest> held = new ConcurrentLinkedQueue<>();
        try (XioEngine engine = XioEngine.builder().name("shm-child").contexts(1).busyPoll(Duration.ZERO).build())
        {
            engine.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            engine.register("hold", request ->
            {
                request.message().close();
                held.add(request);
            });
            engine.bind("shm://" + args[0]);
            System.out.println("READY");
            System.out.flush();
            while (System.in.read() >= 0)
            {
                Thread.onSpinWait(); // the parent closes our stdin to stop us
            }
        }
    }
}
