package io.xio.spring.autoconfigure;

import io.xio.engine.Limits;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code xio.limits.*} onto the engine's {@link Limits}, one line a limit: the property, the engine's name for it
 * (which its messages use), where the bound value is read and which {@code with} method applies it. The same line
 * names the property when the engine refuses the value, so a new limit is its field in {@link XioProperties.Limits}
 * and one line here.
 */
final class XioLimitsMapping
{
    private static final String PREFIX = "xio.limits.";

    /**
     * In the order they are applied. The engine's {@code withMaxInFlight} widens the dedup window and its
     * {@code withMaxQueuedBytes} the unsent bound where they are smaller, so max-in-flight comes before dedup-window
     * and max-queued-size before max-unsent-size: one not set follows the other, one set must fit it.
     */
    private static final List<Limit<?>> LIMITS = List.of(
        intSize("max-message-size", "maxMessageBytes", XioProperties.Limits::getMaxMessageSize,
            Limits::withMaxMessageBytes),
        intSize("max-header-size", "maxHeaderBytes", XioProperties.Limits::getMaxHeaderSize,
            Limits::withMaxHeaderBytes),
        limit("max-segments", "maxSegments", XioProperties.Limits::getMaxSegments, Limits::withMaxSegments),
        limit("max-in-flight", "maxInFlight", XioProperties.Limits::getMaxInFlight, Limits::withMaxInFlight),
        limit("dedup-window", "dedupWindow", XioProperties.Limits::getDedupWindow, Limits::withDedupWindow),
        intSize("retained-response-size", "retainedResponseBytes", XioProperties.Limits::getRetainedResponseSize,
            Limits::withRetainedResponseBytes),
        intSize("max-queued-size", "maxQueuedBytes", XioProperties.Limits::getMaxQueuedSize,
            Limits::withMaxQueuedBytes),
        longSize("max-unsent-size", "maxUnsentBytes", XioProperties.Limits::getMaxUnsentSize,
            Limits::withMaxUnsentBytes),
        limit("write-stall-timeout", "writeStallTimeout", XioProperties.Limits::getWriteStallTimeout,
            Limits::withWriteStallTimeout),
        limit("handshake-timeout", "handshakeTimeout", XioProperties.Limits::getHandshakeTimeout,
            Limits::withHandshakeTimeout),
        limit("incomplete-frame-timeout", "incompleteFrameTimeout", XioProperties.Limits::getIncompleteFrameTimeout,
            Limits::withIncompleteFrameTimeout),
        intSize("min-receive-rate", "minReceiveRate", XioProperties.Limits::getMinReceiveRate,
            Limits::withMinReceiveRate),
        limit("max-sessions", "maxSessions", XioProperties.Limits::getMaxSessions, Limits::withMaxSessions),
        limit("max-sessions-per-connection", "maxSessionsPerConnection",
            XioProperties.Limits::getMaxSessionsPerConnection, Limits::withMaxSessionsPerConnection),
        limit("max-sessions-per-peer", "maxSessionsPerPeer", XioProperties.Limits::getMaxSessionsPerPeer,
            Limits::withMaxSessionsPerPeer),
        limit("max-sessions-per-principal", "maxSessionsPerPrincipal",
            XioProperties.Limits::getMaxSessionsPerPrincipal, Limits::withMaxSessionsPerPrincipal),
        limit("max-in-flight-per-principal", "maxInFlightPerPrincipal",
            XioProperties.Limits::getMaxInFlightPerPrincipal, Limits::withMaxInFlightPerPrincipal),
        limit("max-authentication-failures-per-host", "maxAuthenticationFailuresPerHost",
            XioProperties.Limits::getMaxAuthenticationFailuresPerHost, Limits::withMaxAuthenticationFailuresPerHost),
        limit("authentication-failure-interval", "authenticationFailureInterval",
            XioProperties.Limits::getAuthenticationFailureInterval, Limits::withAuthenticationFailureInterval),
        limit("max-connections-per-portal", "maxConnectionsPerPortal",
            XioProperties.Limits::getMaxConnectionsPerPortal, Limits::withMaxConnectionsPerPortal),
        limit("max-connections-per-peer", "maxConnectionsPerPeer", XioProperties.Limits::getMaxConnectionsPerPeer,
            Limits::withMaxConnectionsPerPeer),
        intSize("max-metadata-size", "maxMetadataBytes", XioProperties.Limits::getMaxMetadataSize,
            Limits::withMaxMetadataBytes),
        longSize("max-retained-size-per-session", "maxRetainedBytesPerSession",
            XioProperties.Limits::getMaxRetainedSizePerSession, Limits::withMaxRetainedBytesPerSession),
        longSize("max-retained-size", "maxRetainedBytes", XioProperties.Limits::getMaxRetainedSize,
            Limits::withMaxRetainedBytes));

    /** Each limit by the engine's name for it, for the engine's messages. */
    private static final Map<String, Limit<?>> BY_ENGINE_NAME = LIMITS.stream()
        .collect(Collectors.toUnmodifiableMap(Limit::engineName, Function.identity()));

    private XioLimitsMapping()
    {
    }

    /**
     * The engine's limits from {@code xio.limits.*}, each one not set the engine's default. One the engine refuses
     * (it contradicts another) fails start-up as an invalid value of its property, with the engine's reason in
     * property names.
     */
    static Limits limits(final XioProperties.Limits properties)
    {
        Limits limits = Limits.DEFAULT;
        for (final Limit<?> limit : LIMITS)
        {
            limits = limit.applyTo(limits, properties);
        }
        return limits;
    }

    /**
     * The engine's message with the names of its limits ({@code dedupWindow}, {@code maxUnsentBytes}) as the
     * properties that set them ({@code xio.limits.dedup-window}, {@code xio.limits.max-unsent-size}): every word
     * that is the engine's name of a limit in the table.
     */
    static String inPropertyNames(final String engineMessage)
    {
        final StringBuilder message = new StringBuilder(engineMessage.length() + 32);
        int at = 0;
        while (at < engineMessage.length())
        {
            if (!Character.isJavaIdentifierStart(engineMessage.charAt(at)))
            {
                message.append(engineMessage.charAt(at++));
                continue;
            }
            int end = at + 1;
            while (end < engineMessage.length() && Character.isJavaIdentifierPart(engineMessage.charAt(end)))
            {
                end++;
            }
            final String word = engineMessage.substring(at, end);
            final Limit<?> limit = BY_ENGINE_NAME.get(word);
            message.append(limit != null ? PREFIX + limit.property() : word);
            at = end;
        }
        return message.toString();
    }

    private static <T> Limit<T> limit(final String property, final String engineName,
        final Function<XioProperties.Limits, @Nullable T> value, final BiFunction<Limits, T, Limits> with)
    {
        return new Limit<>(property, engineName, value, with);
    }

    /** A size the engine takes as an int of bytes; the property's setter keeps it within an int. */
    private static Limit<DataSize> intSize(final String property, final String engineName,
        final Function<XioProperties.Limits, @Nullable DataSize> value, final BiFunction<Limits, Integer, Limits> with)
    {
        return new Limit<>(property, engineName, value,
            (limits, size) -> with.apply(limits, Math.toIntExact(size.toBytes())));
    }

    /** A size the engine takes as a long of bytes. */
    private static Limit<DataSize> longSize(final String property, final String engineName,
        final Function<XioProperties.Limits, @Nullable DataSize> value, final BiFunction<Limits, Long, Limits> with)
    {
        return new Limit<>(property, engineName, value, (limits, size) -> with.apply(limits, size.toBytes()));
    }

    /** One limit: its property under {@code xio.limits}, the engine's name, its bound value and how it applies. */
    private record Limit<T>(String property, String engineName, Function<XioProperties.Limits, @Nullable T> value,
        BiFunction<Limits, T, Limits> with)
    {
        /** {@code limits} with this limit's value if its property is set; as they are if not. */
        Limits applyTo(final Limits limits, final XioProperties.Limits properties)
        {
            final T set = value.apply(properties);
            if (set == null)
            {
                return limits;
            }
            try
            {
                return with.apply(limits, set);
            }
            catch (final IllegalArgumentException ex)
            {
                // Not chained: the engine's message, in its own names, would be the root cause shown at start-up.
                throw new InvalidConfigurationPropertyValueException(PREFIX + property, set,
                    inPropertyNames(ex.getMessage()));
            }
        }
    }
}
