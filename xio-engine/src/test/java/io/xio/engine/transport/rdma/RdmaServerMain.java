package io.xio.engine.transport.rdma;

import io.xio.engine.InboundRequest;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.XioEngine;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A server in a process of its own for the rdma tests: binds {@code rdma://<XIO_RDMA_ADDRESS>:0}, serves
 * "echo" and "hold" (never answers), prints {@code READY <portal uri>}, and runs until killed or its
 * standard input closes.
 */
public final class RdmaServerMain
{
    private RdmaServerMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final ConcurrentLinkedQueue<InboundRequest> held = new ConcurrentLinkedQueue<>();
        try (XioEngine engine = XioEngine.builder().name("rdma-child").contexts(1).busyPoll(Duration.ZERO).build())
        {
            engine.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            engine.register("hold", request ->
            {
                request.message().close();
                held.add(request);
            });
            final Portal portal = engine.bind("rdma://" + RdmaTestAddress.ip() + ":0");
            System.out.println("READY " + portal.uri());
            System.out.flush();
            while (System.in.read() >= 0)
            {
                Thread.onSpinWait(); // the parent closes our stdin to stop us
            }
        }
    }
}
