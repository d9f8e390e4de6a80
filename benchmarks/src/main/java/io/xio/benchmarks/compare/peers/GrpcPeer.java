package io.xio.benchmarks.compare.peers;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.StreamLoop;
import io.xio.benchmarks.compare.Variant;
import io.xio.benchmarks.compare.Workload;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-java over its shaded Netty (epoll on Linux), one unary method with a byte[] marshaller and a hand-built
 * {@link MethodDescriptor} (no protoc). The marshaller writes a message in one go ({@link Drainable}, as protobuf's
 * messages do; gRPC copies any other stream through a new 8 KiB buffer) and reads one into an array of the length
 * gRPC's stream knows ({@link KnownLength}; {@code readAllBytes} would fill 8 KiB chunks first). Both sides use the direct executor, gRPC's fastest setting: handlers
 * and callbacks run on the Netty event loop. Variant {@code blocking} (the blocking stub's call, 1 outstanding)
 * or {@code async} (the async stub's call with a callback, any number outstanding); {@code tls} adds TLS 1.3 with
 * gRPC's default provider (BoringSSL from its shaded netty-tcnative where it loads, else the JDK's), what a gRPC
 * user gets.
 *
 * <p>A {@link Workload#isStream() stream} workload uses a second, server-streaming method with the same marshaller
 * and manual flow control on both sides: the server sends the same byte[] while
 * {@link ServerCallStreamObserver#isReady()} and resumes in its {@code setOnReadyHandler}; the client drives a
 * {@link ClientCall} itself and keeps the workload's demand asked for with {@link ClientCall#request(int)}.
 */
public final class GrpcPeer implements Peer
{
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>()
    {
        @Override
        public InputStream stream(final byte[] value)
        {
            return new BytesStream(value);
        }

        @Override
        public byte[] parse(final InputStream stream)
        {
            try
            {
                if (stream instanceof KnownLength)
                {
                    // gRPC's own streams know their length: one array of it, not readAllBytes' 8 KiB chunks
                    final byte[] bytes = new byte[stream.available()];
                    if (stream.readNBytes(bytes, 0, bytes.length) == bytes.length && stream.read() < 0)
                    {
                        return bytes;
                    }
                    throw new IOException("a message of " + bytes.length + " bytes was not as long as it said");
                }
                return stream.readAllBytes();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
    };

    private static final MethodDescriptor<byte[], byte[]> CALL = MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName("xio.bench.Echo", "Call"))
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .build();

    private static final MethodDescriptor<byte[], byte[]> STREAM = MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
        .setFullMethodName(MethodDescriptor.generateFullMethodName("xio.bench.Echo", "Stream"))
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .build();

    @Override
    public Server serve(final String variant, final Workload workload) throws Exception
    {
        final byte[] ack = new byte[workload.responseBytes()];
        final byte[] message = new byte[workload.responseBytes()];
        final ServerServiceDefinition service = ServerServiceDefinition.builder("xio.bench.Echo")
            .addMethod(CALL, ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> response) ->
            {
                response.onNext(workload.isEcho() ? request : ack);
                response.onCompleted();
            }))
            .addMethod(STREAM, ServerCalls.asyncServerStreamingCall((byte[] request, StreamObserver<byte[]> response) ->
                new Producer((ServerCallStreamObserver<byte[]>)response, message).start()))
            .build();
        final boolean tls = Variant.parse(variant).has("tls");
        final Path store = tls ? BenchTls.create() : null;
        final NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .directExecutor().addService(service).maxInboundMessageSize(workload.requestBytes() + 1024);
        if (tls)
        {
            builder.sslContext(GrpcSslContexts.configure(SslContextBuilder.forServer(BenchTls.keys(store)))
                .protocols("TLSv1.3").build());
        }
        final io.grpc.Server server = builder.build().start();
        final String address = tls ? BenchTls.withStore(String.valueOf(server.getPort()), store)
            : String.valueOf(server.getPort());
        return new Server()
        {
            @Override
            public String address()
            {
                return address;
            }

            @Override
            public void close() throws InterruptedException
            {
                server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                if (store != null)
                {
                    BenchTls.delete(store);
                }
            }
        };
    }

    @Override
    public Measurement run(final String variantText, final String address, final Workload workload) throws Exception
    {
        final Variant variant = Variant.parse(variantText);
        final NettyChannelBuilder builder = NettyChannelBuilder.forAddress("127.0.0.1",
            Integer.parseInt(BenchTls.address(address))).directExecutor()
            .maxInboundMessageSize(workload.responseBytes() + 1024);
        if (variant.has("tls"))
        {
            builder.sslContext(GrpcSslContexts.configure(SslContextBuilder.forClient()
                .trustManager(BenchTls.trust(BenchTls.store(address)))).protocols("TLSv1.3").build());
        }
        else
        {
            builder.usePlaintext();
        }
        final ManagedChannel channel = builder.build();
        if (workload.isStream())
        {
            return runStream(channel, workload);
        }
        try
        {
            final byte[] payload = new byte[workload.requestBytes()];
            if (variant.has("blocking"))
            {
                if (workload.outstanding() != 1)
                {
                    throw new IllegalArgumentException("gRPC blocking calls: 1 outstanding only");
                }
                return CallLoop.blocking(workload,
                    () -> ClientCalls.blockingUnaryCall(channel, CALL, CallOptions.DEFAULT, payload), () -> Double.NaN);
            }
            final CallLoop.AsyncCall call = slot -> ClientCalls.asyncUnaryCall(channel.newCall(CALL, CallOptions.DEFAULT),
                payload, new StreamObserver<>()
                {
                    @Override
                    public void onNext(final byte[] value)
                    {
                    }

                    @Override
                    public void onError(final Throwable error)
                    {
                        slot.completed(error);
                    }

                    @Override
                    public void onCompleted()
                    {
                        slot.completed(null);
                    }
                });
            // one call first: the channel connects lazily, and 64 first calls should not race that
            ClientCalls.blockingUnaryCall(channel, CALL, CallOptions.DEFAULT, payload);
            return CallLoop.pipelined(workload, call, Runnable::run, () -> Double.NaN);
        }
        finally
        {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** Opens one server stream on {@code channel}, takes every message and measures; then shuts the channel down. */
    private static Measurement runStream(final ManagedChannel channel, final Workload workload) throws Exception
    {
        final StreamLoop.Counter counter = new StreamLoop.Counter();
        final StreamLoop.Demand demand = new StreamLoop.Demand(workload.outstanding());
        final ClientCall<byte[], byte[]> call = channel.newCall(STREAM, CallOptions.DEFAULT);
        try
        {
            call.start(new ClientCall.Listener<>()
            {
                @Override
                public void onMessage(final byte[] message)
                {
                    counter.add(1);
                    final int more = demand.taken();
                    if (more > 0)
                    {
                        call.request(more);
                    }
                }

                @Override
                public void onClose(final Status status, final io.grpc.Metadata trailers)
                {
                    counter.failed(status.isOk() ? new IllegalStateException("the server ended the endless stream")
                        : status.asRuntimeException(trailers));
                }
            }, new io.grpc.Metadata());
            call.sendMessage(new byte[Workload.OPEN_BYTES]);
            call.halfClose();
            call.request(demand.initial());
            return StreamLoop.measure(workload, counter, () -> -1);
        }
        finally
        {
            call.cancel("the run is over", null);
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /**
     * The server's side of one stream: sends while the call is ready, goes on in its on-ready handler, stops at a
     * cancel. Runs on the event loop (direct executor).
     */
    private static final class Producer
    {
        private final ServerCallStreamObserver<byte[]> out;
        private final byte[] message;
        private volatile boolean cancelled;

        Producer(final ServerCallStreamObserver<byte[]> out, final byte[] message)
        {
            this.out = out;
            this.message = message;
        }

        void start()
        {
            out.setOnCancelHandler(() -> cancelled = true);
            out.setOnReadyHandler(this::pump);
            pump();
        }

        private void pump()
        {
            while (!cancelled && out.isReady())
            {
                out.onNext(message);
            }
        }
    }

    /**
     * Lets gRPC size the message without buffering the stream first, and write it in one go ({@link Drainable}, as
     * protobuf's messages do) rather than copy it through an 8 KiB buffer made for each message.
     */
    private static final class BytesStream extends ByteArrayInputStream implements KnownLength, Drainable
    {
        private BytesStream(final byte[] bytes)
        {
            super(bytes);
        }

        @Override
        public int drainTo(final OutputStream target) throws IOException
        {
            final int length = count - pos;
            target.write(buf, pos, length);
            pos = count;
            return length;
        }
    }
}
