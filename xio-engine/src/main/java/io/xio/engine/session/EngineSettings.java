package io.xio.engine.session;

import io.xio.engine.Limits;
import io.xio.engine.SessionListener;
import org.agrona.concurrent.NanoClock;

import java.time.Duration;

/**
 * The settings an engine's session layer runs with, as {@code XioEngine.Builder} checked them. Immutable.
 *
 * @param clock the time that deadlines, timers, keepalive and reconnect backoff follow (the contexts' clock)
 */
public record EngineSettings(String name, Limits limits, Duration keepaliveInterval, Duration keepaliveTimeout,
    Duration reconnectTimeout, Duration connectTimeout, Duration callerSpin, SessionListener listener,
    NanoClock clock)
{
}
