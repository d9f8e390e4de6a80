package io.xio.benchmarks.compare.peers;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.StreamLoop;
import io.xio.benchmarks.compare.Workload;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

import java.time.Duration;

/**
 * RSocket-java request-stream over its Netty TCP transport (reactor-netty, epoll on Linux), server streams only.
 * Both sides decode with {@link PayloadDecoder#ZERO_COPY}, RSocket's setting for throughput (the application releases
 * each payload). The server answers every request-stream with {@link Flux#generate}, which emits only as the
 * subscriber's demand allows (REQUEST_N frames from the client): a payload over a retained slice of one direct buffer
 * each. The client subscribes with a {@link BaseSubscriber} that releases each payload and keeps the workload's demand
 * requested ({@link StreamLoop.Demand}).
 */
public final class RSocketPeer implements Peer
{
    @Override
    public Server serve(final String variant, final Workload workload)
    {
        requireStream(workload);
        final ByteBuf message = Unpooled.directBuffer(workload.responseBytes()).writeZero(workload.responseBytes());
        final CloseableChannel server = RSocketServer.create(SocketAcceptor.forRequestStream(request ->
            {
                request.release();
                return Flux.generate(sink -> sink.next(ByteBufPayload.create(message.retainedSlice())));
            }))
            .payloadDecoder(PayloadDecoder.ZERO_COPY)
            .bind(TcpServerTransport.create("127.0.0.1", 0))
            .block(Duration.ofSeconds(30));
        final String address = String.valueOf(server.address().getPort());
        return new Server()
        {
            @Override
            public String address()
            {
                return address;
            }

            @Override
            public void close()
            {
                server.dispose();
                server.onClose().block(Duration.ofSeconds(5));
            }
        };
    }

    @Override
    public Measurement run(final String variant, final String address, final Workload workload) throws Exception
    {
        requireStream(workload);
        final RSocket rsocket = RSocketConnector.create()
            .payloadDecoder(PayloadDecoder.ZERO_COPY)
            .connect(TcpClientTransport.create("127.0.0.1", Integer.parseInt(address)))
            .block(Duration.ofSeconds(30));
        final StreamLoop.Counter counter = new StreamLoop.Counter();
        final StreamLoop.Demand demand = new StreamLoop.Demand(workload.outstanding());
        final BaseSubscriber<Payload> consumer = new BaseSubscriber<>()
        {
            @Override
            protected void hookOnSubscribe(final Subscription subscription)
            {
                subscription.request(demand.initial());
            }

            @Override
            protected void hookOnNext(final Payload payload)
            {
                payload.release();
                counter.add(1);
                final int more = demand.taken();
                if (more > 0)
                {
                    request(more);
                }
            }

            @Override
            protected void hookOnComplete()
            {
                counter.failed(new IllegalStateException("the server completed the endless stream"));
            }

            @Override
            protected void hookOnError(final Throwable error)
            {
                counter.failed(error);
            }
        };
        try
        {
            rsocket.requestStream(DefaultPayload.create(new byte[Workload.OPEN_BYTES])).subscribe(consumer);
            return StreamLoop.measure(workload, counter, () -> -1);
        }
        finally
        {
            consumer.dispose();
            rsocket.dispose();
        }
    }

    private static void requireStream(final Workload workload)
    {
        if (!workload.isStream())
        {
            throw new IllegalArgumentException("the RSocket peer runs server streams only, not " + workload.shape());
        }
    }
}
