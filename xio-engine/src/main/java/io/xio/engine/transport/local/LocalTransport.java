package io.xio.engine.transport.local;

import io.xio.engine.ConnectionException;
import io.xio.engine.XioUri;
import io.xio.engine.transport.AddressInUseException;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;

import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The {@code local} transport: connections between engines in one JVM, with no sockets. Portals are named
 * ({@code local://name}) in a JVM-wide registry. Thread-safe.
 */
public final class LocalTransport implements Transport
{
    private static final ConcurrentHashMap<String, Endpoint> PORTALS = new ConcurrentHashMap<>();

    private record Endpoint(TransportContext context, Consumer<TransportLink> onAccept, String name)
    {
    }

    @Override
    public String scheme()
    {
        return "local";
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        final String name = address.host();
        final Endpoint endpoint = new Endpoint(context, onAccept, name);
        if (PORTALS.putIfAbsent(name, endpoint) != null)
        {
            throw new AddressInUseException("local portal '" + name + "' is already bound in this JVM");
        }
        return TransportListener.of(address.endpoint(), () -> PORTALS.remove(name, endpoint));
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final ConnectCallback callback)
    {
        final Endpoint endpoint = PORTALS.get(address.host());
        if (endpoint == null)
        {
            callback.onFailed(new ConnectionException(
                "cannot connect to " + address.endpoint() + ": no local portal of that name in this JVM"));
            return () -> { };
        }
        final LocalPipe toServer = new LocalPipe();
        final LocalPipe toClient = new LocalPipe();
        final LocalLink client = new LocalLink(context, toClient, toServer, "local://" + endpoint.name());
        endpoint.context().execute(() ->
        {
            if (PORTALS.get(endpoint.name()) != endpoint)
            {
                toClient.closed = true;
                context.wakeup();
                return;
            }
            endpoint.onAccept().accept(
                new LocalLink(endpoint.context(), toServer, toClient, "local://client@" + context.name()));
        });
        callback.onConnected(client);
        return () -> { };
    }
}
