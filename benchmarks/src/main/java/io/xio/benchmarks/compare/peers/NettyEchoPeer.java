package io.xio.benchmarks.compare.peers;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.Workload;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;

/**
 * Netty 4.2 with the native epoll transport, one event loop per side. The server is Netty's canonical echo
 * handler (write what was read, flush when the read completes); the client issues each call from the event
 * loop that received the previous answer, like xio's context style. Echo workloads only.
 */
public final class NettyEchoPeer implements Peer
{
    @Override
    public Server serve(final String variant, final Workload workload) throws Exception
    {
        requireEpollAndEcho(workload);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        final Channel listener = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new EchoHandler())
            .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        return new Server()
        {
            @Override
            public String address()
            {
                return String.valueOf(((InetSocketAddress)listener.localAddress()).getPort());
            }

            @Override
            public void close() throws Exception
            {
                listener.close().sync();
                group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
            }
        };
    }

    @Override
    public Measurement run(final String variant, final String address, final Workload workload) throws Exception
    {
        requireEpollAndEcho(workload);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try
        {
            final Answers answers = new Answers(workload.responseBytes());
            final Channel channel = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true).handler(answers)
                .connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(address))).sync().channel();
            final ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(workload.requestBytes())
                .writeZero(workload.requestBytes());
            final CallLoop.AsyncCall call = slot ->
            {
                answers.waiting.add(slot);
                channel.writeAndFlush(payload.retainedDuplicate(), channel.voidPromise());
            };
            try
            {
                return CallLoop.pipelined(workload, call, channel.eventLoop(), () -> Double.NaN);
            }
            finally
            {
                channel.close().sync();
                payload.release();
            }
        }
        finally
        {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    private static void requireEpollAndEcho(final Workload workload)
    {
        if (!Epoll.isAvailable())
        {
            throw new IllegalStateException("Netty's native epoll transport is unavailable (needs Linux x86_64 and " +
                "netty-transport-native-epoll:linux-x86_64 on the class path)", Epoll.unavailabilityCause());
        }
        if (!workload.isEcho())
        {
            throw new IllegalArgumentException("the Netty peer echoes: request and response must be the same size");
        }
    }

    /** Writes back what it reads. */
    @ChannelHandler.Sharable
    private static final class EchoHandler extends ChannelInboundHandlerAdapter
    {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx)
        {
            ctx.flush();
        }
    }

    /** Counts answer bytes on the event loop and completes the oldest waiting call per whole answer. */
    private static final class Answers extends ChannelInboundHandlerAdapter
    {
        private final int answerBytes;
        private final ArrayDeque<CallLoop.Slot> waiting = new ArrayDeque<>();
        private long received;

        private Answers(final int answerBytes)
        {
            this.answerBytes = answerBytes;
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final ByteBuf buf = (ByteBuf)msg;
            received += buf.readableBytes();
            buf.release();
            while (received >= answerBytes)
            {
                received -= answerBytes;
                waiting.poll().completed(null);
            }
        }
    }
}
