package io.xio.engine;

import java.time.Duration;
import java.util.Map;

/**
 * How a client session is opened. Immutable and thread-safe.
 *
 * @param attributes sent with the set-up request for the server's acceptor (e.g. credentials)
 * @param connections parallel connections, one per context; 0 means one per engine context
 * @param timeout default deadline of a request on this session
 * @param handler receives requests the server sends on this session (requests go both ways); may be null
 * @param listener receives this session's lifecycle events
 */
public record SessionOptions(Map<String, String> attributes, int connections, Duration timeout,
    RequestHandler handler, SessionListener listener)
{
    public static final SessionOptions DEFAULT =
        new SessionOptions(Map.of(), 0, Duration.ofSeconds(5), null, SessionListener.NONE);

    public SessionOptions
    {
        attributes = Map.copyOf(attributes);
        if (connections < 0)
        {
            throw new IllegalArgumentException("connections must be >= 0, was " + connections);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        listener = listener == null ? SessionListener.NONE : listener;
    }

    public SessionOptions withAttributes(final Map<String, String> value)
    {
        return new SessionOptions(value, connections, timeout, handler, listener);
    }

    public SessionOptions withConnections(final int value)
    {
        return new SessionOptions(attributes, value, timeout, handler, listener);
    }

    public SessionOptions withTimeout(final Duration value)
    {
        return new SessionOptions(attributes, connections, value, handler, listener);
    }

    public SessionOptions withHandler(final RequestHandler value)
    {
        return new SessionOptions(attributes, connections, timeout, value, listener);
    }

    public SessionOptions withListener(final SessionListener value)
    {
        return new SessionOptions(attributes, connections, timeout, handler, value);
    }
}
