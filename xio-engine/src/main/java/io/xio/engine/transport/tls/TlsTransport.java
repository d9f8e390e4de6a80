package io.xio.engine.transport.tls;

import io.xio.engine.TlsOptions;
import io.xio.engine.XioException;
import io.xio.engine.XioUri;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;
import io.xio.engine.transport.tcp.TcpTransport;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The {@code tls} transport: {@code tls://host:port/resource} is tcp with TLS. It listens and dials as
 * {@link TcpTransport} does, and each socket's link runs an {@link SSLEngine} made from the portal's or the
 * session's {@link TlsOptions}, whose context is asked for every new connection (so a reloaded key or trust store
 * applies to the connections after the reload). Thread-safe; one per engine.
 */
public final class TlsTransport implements Transport
{
    private final LongAdder records = new LongAdder();
    private final LongAdder held = new LongAdder();

    @Override
    public String scheme()
    {
        return "tls";
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        return listen(address, context, null, onAccept);
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final ConnectCallback callback)
    {
        return connect(address, context, null, callback);
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context, final TlsOptions tls,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        if (tls == null)
        {
            throw new XioException("portal " + address + " has no TLS options: set them for the engine with " +
                "XioEngine.Builder.tls(TlsOptions), or for this portal with PortalOptions.withTls");
        }
        // The SSLEngine (and the options' context supplier) only once the link starts: after the portal's limits
        // admitted the socket, so a refused one costs no TLS state.
        return TcpTransport.listen(address, context, (ctx, channel) -> new TlsLink(ctx, channel, () ->
        {
            try
            {
                return serverEngine(tls);
            }
            catch (final RuntimeException ex)
            {
                org.slf4j.LoggerFactory.getLogger(TlsTransport.class).warn("portal {} refused a connection: its " +
                    "TLS options made no SSLEngine", address, ex);
                throw ex;
            }
        }, records, held), onAccept);
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final TlsOptions tls,
        final ConnectCallback callback)
    {
        if (tls == null)
        {
            callback.onFailed(new XioException("session to " + address + " has no TLS options: set them for the " +
                "engine with XioEngine.Builder.tls(TlsOptions), or for this session with SessionOptions.withTls"));
            return () -> { };
        }
        return TcpTransport.connect(address, context, (ctx, channel) ->
        {
            final SSLEngine engine = clientEngine(tls, address); // failing here fails the connect, naming why
            return new TlsLink(ctx, channel, () -> engine, records, held);
        }, callback);
    }

    /** TLS records this transport's links have wrapped so far: how well a turn's frames coalesce. Any thread. */
    public long recordsWrapped()
    {
        return records.sum();
    }

    /**
     * Network buffers (ciphertext in and out, a record's plaintext that did not fit) this transport's links hold
     * now: a link holds one only while it has bytes in it, so idle connections hold none. Any thread.
     */
    public long networkBuffersHeld()
    {
        return held.sum();
    }

    static SSLEngine serverEngine(final TlsOptions tls)
    {
        final SSLEngine engine = context(tls).createSSLEngine();
        engine.setUseClientMode(false);
        final SSLParameters parameters = parameters(engine, tls);
        switch (tls.clientAuth())
        {
            case REQUIRE -> parameters.setNeedClientAuth(true);
            case WANT -> parameters.setWantClientAuth(true);
            default -> parameters.setWantClientAuth(false);
        }
        engine.setSSLParameters(parameters);
        return engine;
    }

    static SSLEngine clientEngine(final TlsOptions tls, final XioUri address)
    {
        final SSLEngine engine = context(tls).createSSLEngine(address.host(), address.port());
        engine.setUseClientMode(true);
        final SSLParameters parameters = parameters(engine, tls);
        if (tls.verifyHostname())
        {
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
        }
        if (!isIpLiteral(address.host()))
        {
            parameters.setServerNames(List.of(new SNIHostName(address.host())));
        }
        engine.setSSLParameters(parameters);
        return engine;
    }

    private static SSLContext context(final TlsOptions tls)
    {
        final SSLContext context = tls.context().get();
        if (context == null)
        {
            throw new XioException("the TLS options' context supplier returned null");
        }
        return context;
    }

    private static SSLParameters parameters(final SSLEngine engine, final TlsOptions tls)
    {
        final SSLParameters parameters = engine.getSSLParameters();
        parameters.setProtocols(tls.protocols().toArray(String[]::new));
        if (!tls.cipherSuites().isEmpty())
        {
            parameters.setCipherSuites(tls.cipherSuites().toArray(String[]::new));
        }
        return parameters;
    }

    /** SNI names hosts, never addresses (RFC 6066, 3). */
    private static boolean isIpLiteral(final String host)
    {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
    }
}
