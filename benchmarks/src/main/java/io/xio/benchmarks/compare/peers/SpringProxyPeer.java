package io.xio.benchmarks.compare.peers;

import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.Workload;
import io.xio.benchmarks.spring.client.ClientApplication;
import io.xio.benchmarks.spring.client.EchoClient;
import io.xio.benchmarks.spring.server.ServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.function.BiConsumer;

/**
 * The Spring path: an {@code @XioClient} proxy calling an {@code @XioService} over tcp, the applications of
 * {@link io.xio.benchmarks.spring.SpringOverhead}, each in its own JVM with one context and default settings.
 * Bytes travel as a data segment. One outstanding uses the blocking method, more use the
 * {@code CompletableFuture} one. Echo workloads only.
 */
public final class SpringProxyPeer implements Peer
{
    private static final String[] QUIET = {"spring.main.banner-mode=off", "logging.level.root=warn", "xio.contexts=1"};

    @Override
    public Server serve(final String variant, final Workload workload)
    {
        requireEcho(workload);
        final ConfigurableApplicationContext server = new SpringApplicationBuilder(ServerApplication.class)
            .web(WebApplicationType.NONE).properties(QUIET).properties("xio.portals[0].uri=tcp://127.0.0.1:0").run();
        final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
        return new Server()
        {
            @Override
            public String address()
            {
                return "tcp://127.0.0.1:" + port + "/echo";
            }

            @Override
            public void close()
            {
                server.close();
            }
        };
    }

    @Override
    public Measurement run(final String variant, final String address, final Workload workload) throws Exception
    {
        requireEcho(workload);
        try (ConfigurableApplicationContext client = new SpringApplicationBuilder(ClientApplication.class)
                 .web(WebApplicationType.NONE).properties(QUIET).properties("xio.clients.echo.uri=" + address).run())
        {
            final EchoClient echo = client.getBean(EchoClient.class);
            final byte[] payload = new byte[workload.requestBytes()];
            if (workload.outstanding() == 1)
            {
                return CallLoop.blocking(workload, () -> echo.bytes(payload), () -> Double.NaN);
            }
            @SuppressWarnings("unchecked")
            final BiConsumer<byte[], Throwable>[] callbacks = new BiConsumer[workload.outstanding()];
            final CallLoop.AsyncCall call = slot ->
            {
                BiConsumer<byte[], Throwable> callback = callbacks[slot.index()];
                if (callback == null)
                {
                    callback = (reply, error) -> slot.completed(error);
                    callbacks[slot.index()] = callback;
                }
                echo.bytesAsync(payload).whenComplete(callback);
            };
            return CallLoop.pipelined(workload, call, Runnable::run, () -> Double.NaN);
        }
    }

    private static void requireEcho(final Workload workload)
    {
        if (!workload.isEcho())
        {
            throw new IllegalArgumentException("the Spring peer echoes: request and response must be the same size");
        }
    }
}
