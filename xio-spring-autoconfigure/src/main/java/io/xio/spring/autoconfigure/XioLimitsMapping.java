package io.xio.spring.autoconfigure;

import io.xio.engine.Limits;
import io.xio.engine.StreamLimits;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code xio.limits.*} onto the engine's {@link Limits}, one line a limit: the property, the engine's name for it
 * (which its messages use), where the bound value is read and which {@code with} method (or, for
 * {@code xio.limits.streams.*}, which {@link StreamLimits.Builder} method) applies it. The same line names the property
 * when the engine refuses the value, so a new limit is its field in {@link XioProperties.Limits} (or its
 * {@link XioProperties.Limits.Streams}) and one line here.
 */
final class XioLimitsMapping
{
    private static final String PREFIX = "xio.limits.";

    /**
     * In the order they are applied. The engine's {@code withMaxInFlight} widens the dedup window and its
     * {@code withMaxQueuedBytes} the unsent bound where they are smaller, so max-in-flight comes before dedup-window
     * and max-queued-size before max-unsent-size: one not set follows the other, one set must fit it.
     */
    private static final List<Limit<XioProperties.Limits, Limits, ?>> LIMITS = List.of(
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

    /**
     * Set on one builder and checked together when it builds: a window and the budgets it must fit may only be right
     * together (a larger window-size with a larger max-window-size-per-session, say), so no order of one at a time
     * would do.
     */
    private static final List<Limit<XioProperties.Limits.Streams, StreamLimits.Builder, ?>> STREAM_LIMITS = List.of(
        limit("streams.max", "maxStreams", XioProperties.Limits.Streams::getMax, StreamLimits.Builder::maxStreams),
        limit("streams.max-per-session", "maxStreamsPerSession", XioProperties.Limits.Streams::getMaxPerSession,
            StreamLimits.Builder::maxStreamsPerSession),
        limit("streams.max-per-connection", "maxStreamsPerConnection",
            XioProperties.Limits.Streams::getMaxPerConnection, StreamLimits.Builder::maxStreamsPerConnection),
        limit("streams.max-per-peer", "maxStreamsPerPeer", XioProperties.Limits.Streams::getMaxPerPeer,
            StreamLimits.Builder::maxStreamsPerPeer),
        limit("streams.window-messages", "windowMessages", XioProperties.Limits.Streams::getWindowMessages,
            StreamLimits.Builder::windowMessages),
        intSize("streams.window-size", "windowBytes", XioProperties.Limits.Streams::getWindowSize,
            StreamLimits.Builder::windowBytes),
        longSize("streams.max-window-size-per-session", "maxWindowBytesPerSession",
            XioProperties.Limits.Streams::getMaxWindowSizePerSession, StreamLimits.Builder::maxWindowBytesPerSession),
        longSize("streams.max-window-size", "maxWindowBytes", XioProperties.Limits.Streams::getMaxWindowSize,
            StreamLimits.Builder::maxWindowBytes));

    /** Each limit's property (under {@code xio.limits.}) by the engine's name for it, for the engine's messages. */
    private static final Map<String, String> BY_ENGINE_NAME = Stream.<Limit<?, ?, ?>>concat(LIMITS.stream(),
        STREAM_LIMITS.stream()).collect(Collectors.toUnmodifiableMap(Limit::engineName, Limit::property));

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
        for (final Limit<XioProperties.Limits, Limits, ?> limit : LIMITS)
        {
            try
            {
                limits = limit.applyTo(limits, properties);
            }
            catch (final IllegalArgumentException ex)
            {
                throw refused(limit, properties, ex);
            }
        }
        return limits.withStreams(streamLimits(properties.getStreams()));
    }

    /**
     * The stream limits from {@code xio.limits.streams.*}. Refused, they fail as an invalid value of the first
     * property set that the engine's reason names (the window, before the budget it does not fit).
     */
    private static StreamLimits streamLimits(final XioProperties.Limits.Streams properties)
    {
        StreamLimits.Builder builder = Limits.DEFAULT.streams().toBuilder();
        for (final Limit<XioProperties.Limits.Streams, StreamLimits.Builder, ?> limit : STREAM_LIMITS)
        {
            builder = limit.applyTo(builder, properties);
        }
        try
        {
            return builder.build();
        }
        catch (final IllegalArgumentException ex)
        {
            throw refused(blamed(ex.getMessage(), properties), properties, ex);
        }
    }

    /**
     * The stream limit set in {@code properties} that the engine's message names first; the first one set if it
     * names none (it does: the engine's defaults fit together, so one set is in every contradiction).
     */
    private static Limit<XioProperties.Limits.Streams, StreamLimits.Builder, ?> blamed(final String engineMessage,
        final XioProperties.Limits.Streams properties)
    {
        final List<Limit<XioProperties.Limits.Streams, StreamLimits.Builder, ?>> set = STREAM_LIMITS.stream()
            .filter(limit -> limit.value().apply(properties) != null).toList();
        for (final String word : words(engineMessage))
        {
            for (final Limit<XioProperties.Limits.Streams, StreamLimits.Builder, ?> limit : set)
            {
                if (limit.engineName().equals(word))
                {
                    return limit;
                }
            }
        }
        return set.get(0);
    }

    /**
     * An invalid value of {@code limit}'s property, with the engine's reason in property names. Not chained: the
     * engine's message, in its own names, would be the root cause shown at start-up.
     */
    private static <P> InvalidConfigurationPropertyValueException refused(final Limit<P, ?, ?> limit,
        final P properties, final IllegalArgumentException ex)
    {
        return new InvalidConfigurationPropertyValueException(PREFIX + limit.property(),
            limit.value().apply(properties), inPropertyNames(ex.getMessage()));
    }

    /**
     * The engine's message with the names of its limits ({@code dedupWindow}, {@code maxUnsentBytes},
     * {@code windowBytes}) as the properties that set them ({@code xio.limits.dedup-window},
     * {@code xio.limits.max-unsent-size}, {@code xio.limits.streams.window-size}): every word that is the engine's
     * name of a limit in the tables.
     */
    static String inPropertyNames(final String engineMessage)
    {
        final StringBuilder message = new StringBuilder(engineMessage.length() + 32);
        for (final String piece : pieces(engineMessage))
        {
            final String property = BY_ENGINE_NAME.get(piece);
            message.append(property != null ? PREFIX + property : piece);
        }
        return message.toString();
    }

    /** The words (Java identifiers) of the engine's message, in order. */
    private static List<String> words(final String engineMessage)
    {
        return pieces(engineMessage).stream().filter(piece -> Character.isJavaIdentifierStart(piece.charAt(0)))
            .toList();
    }

    /** The engine's message cut into its words and, one character each, what lies between them. */
    private static List<String> pieces(final String engineMessage)
    {
        final List<String> pieces = new ArrayList<>();
        int at = 0;
        while (at < engineMessage.length())
        {
            int end = at + 1;
            if (Character.isJavaIdentifierStart(engineMessage.charAt(at)))
            {
                while (end < engineMessage.length() && Character.isJavaIdentifierPart(engineMessage.charAt(end)))
                {
                    end++;
                }
            }
            pieces.add(engineMessage.substring(at, end));
            at = end;
        }
        return pieces;
    }

    private static <P, L, T> Limit<P, L, T> limit(final String property, final String engineName,
        final Function<P, @Nullable T> value, final BiFunction<L, T, L> with)
    {
        return new Limit<>(property, engineName, value, with);
    }

    /** A size the engine takes as an int of bytes; the property's setter keeps it within an int. */
    private static <P, L> Limit<P, L, DataSize> intSize(final String property, final String engineName,
        final Function<P, @Nullable DataSize> value, final BiFunction<L, Integer, L> with)
    {
        return new Limit<>(property, engineName, value,
            (limits, size) -> with.apply(limits, Math.toIntExact(size.toBytes())));
    }

    /** A size the engine takes as a long of bytes. */
    private static <P, L> Limit<P, L, DataSize> longSize(final String property, final String engineName,
        final Function<P, @Nullable DataSize> value, final BiFunction<L, Long, L> with)
    {
        return new Limit<>(property, engineName, value, (limits, size) -> with.apply(limits, size.toBytes()));
    }

    /**
     * One limit: its property under {@code xio.limits}, the engine's name, where its value is read in the properties
     * {@code P} and how it applies to the limits (or builder) {@code L}.
     */
    private record Limit<P, L, T>(String property, String engineName, Function<P, @Nullable T> value,
        BiFunction<L, T, L> with)
    {
        /** {@code limits} with this limit's value if its property is set; as they are if not. */
        L applyTo(final L limits, final P properties)
        {
            final T set = value.apply(properties);
            return set == null ? limits : with.apply(limits, set);
        }
    }
}
