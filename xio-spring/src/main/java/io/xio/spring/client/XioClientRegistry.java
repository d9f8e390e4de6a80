package io.xio.spring.client;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every client proxy the application made, so health and monitoring can tell whether each one reaches its
 * server. Thread-safe.
 */
public final class XioClientRegistry implements org.springframework.beans.factory.DisposableBean
{
    private final List<XioClientInvocationHandler> clients = new CopyOnWriteArrayList<>();

    void add(final XioClientInvocationHandler client)
    {
        clients.add(client);
    }

    /** The status of every client, as it stands. */
    public List<XioClientStatus> statuses()
    {
        return clients.stream().map(XioClientInvocationHandler::status).toList();
    }

    /**
     * Starts opening the session of every client that has none or whose last attempt failed, without
     * waiting, so that a health check reports reachability before the first call does.
     */
    public void probe()
    {
        clients.forEach(XioClientInvocationHandler::probe);
    }

    /** Stops the watches and sessions of clients that name a service, as the context closes. */
    @Override
    public void destroy()
    {
        clients.forEach(XioClientInvocationHandler::close);
    }
}
