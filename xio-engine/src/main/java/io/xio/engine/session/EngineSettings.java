package io.xio.engine.session;

import io.xio.engine.ClientInterceptor;
import io.xio.engine.Limits;
import io.xio.engine.ServerInterceptor;
import io.xio.engine.SessionListener;
import org.agrona.concurrent.NanoClock;

import java.time.Duration;
import java.util.List;

/**
 * The settings an engine's session layer runs with, as {@code XioEngine.Builder} checked them. Immutable.
 *
 * @param clock the time that deadlines, timers, keepalive and reconnect backoff follow (the contexts' clock)
 * @param clientInterceptors run around every request the engine's sessions send, in this order
 * @param serverInterceptors run around every registered service's handler, the first outermost
 * @param tls what {@code tls} portals and sessions without options of their own use; null for none
 */
public record EngineSettings(String name, Limits limits, Duration keepaliveInterval, Duration keepaliveTimeout,
    Duration reconnectTimeout, Duration connectTimeout, Duration callerSpin, SessionListener listener,
    NanoClock clock, List<ClientInterceptor> clientInterceptors, List<ServerInterceptor> serverInterceptors,
    io.xio.engine.TlsOptions tls)
{
    public EngineSettings
    {
        clientInterceptors = List.copyOf(clientInterceptors);
        serverInterceptors = List.copyOf(serverInterceptors);
    }
}
