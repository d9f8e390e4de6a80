package io.xio.engine;

import java.time.Duration;

/**
 * Bounds that keep memory finite and reject hostile input. Every length and count read from the wire is
 * checked against these before it is used, and every peer, however it behaves, costs at most what they allow.
 *
 * @param maxMessageBytes largest frame accepted or sent (header, application header and data segments)
 * @param maxHeaderBytes largest application header
 * @param maxSegments most data segments in one message
 * @param maxInFlight most requests a session may have awaiting responses (per direction); also the most a
 *                    receiver executes at once for one session
 * @param maxQueuedBytes unsent bytes above which a connection takes no new requests to send and starts no new
 *                       calls from its peer until the peer has read enough
 * @param dedupWindow how many recent request ids per session the receiver remembers (power of two)
 * @param retainedResponseBytes largest response kept for a resend to a retransmitted request
 * @param maxUnsentBytes unsent bytes at which a connection is closed: what a peer that stops reading may cost
 * @param writeStallTimeout how long a peer may read nothing while we have bytes for it before it is disconnected
 * @param handshakeTimeout how long an accepted connection may go without carrying a session (before its first
 *                         set-up, or after its last session ended) before it is closed
 * @param incompleteFrameTimeout how long a frame may take to arrive before its rate is checked
 * @param minReceiveRate bytes per second a frame that takes longer than {@code incompleteFrameTimeout} must have
 *                       arrived at, on average; a slower one closes its connection
 * @param maxSessions most sessions an engine accepts, all portals together
 * @param maxSessionsPerConnection most sessions one accepted connection carries
 * @param maxSessionsPerPeer most sessions an engine accepts from one peer address (host)
 * @param maxConnectionsPerPortal most connections a portal holds open at once
 * @param maxConnectionsPerPeer most connections an engine accepts from one peer address (host)
 * @param maxMetadataBytes largest call context (deadline and metadata entries, {@link Metadata#encodedLength()})
 *                         of one request or response, sent or received; at most 65535
 * @param maxRetainedBytesPerSession bytes of responses larger than {@code retainedResponseBytes} one session keeps
 *                                   by reference for retransmits until the requester acknowledges them; a response
 *                                   that would pass it is not kept (a retransmit of it gets RESPONSE_LOST)
 * @param maxRetainedBytes the same, for all sessions of the engine together
 * @param maxSessionsPerPrincipal most sessions an engine accepts for one authenticated principal (by
 *                                {@link java.security.Principal#getName()}, as the acceptor named it in
 *                                {@link SetupDecision#accept(java.security.Principal)}), all peers together
 * @param maxInFlightPerPrincipal most calls executing at once for one principal, all its sessions together; a call
 *                                over it is answered BACK_PRESSURE, as one over a session's {@code maxInFlight} is
 * @param maxAuthenticationFailuresPerHost failed authentications (the acceptor said
 *                                         {@link SetupDecision#unauthenticated}, or threw) one peer host may have at
 *                                         one portal within {@code authenticationFailureInterval}; its further set-ups
 *                                         there are refused without asking the acceptor until that interval has passed.
 *                                         All clients behind one NAT or proxy share the host's tries, and an IPv6 host
 *                                         counts as its /64: raise it where many clients come through one address
 * @param authenticationFailureInterval how long a host's failed authentications count, from its first
 */
public record Limits(
    int maxMessageBytes,
    int maxHeaderBytes,
    int maxSegments,
    int maxInFlight,
    int maxQueuedBytes,
    int dedupWindow,
    int retainedResponseBytes,
    long maxUnsentBytes,
    Duration writeStallTimeout,
    Duration handshakeTimeout,
    Duration incompleteFrameTimeout,
    int minReceiveRate,
    int maxSessions,
    int maxSessionsPerConnection,
    int maxSessionsPerPeer,
    int maxConnectionsPerPortal,
    int maxConnectionsPerPeer,
    int maxMetadataBytes,
    long maxRetainedBytesPerSession,
    long maxRetainedBytes,
    int maxSessionsPerPrincipal,
    int maxInFlightPerPrincipal,
    int maxAuthenticationFailuresPerHost,
    Duration authenticationFailureInterval)
{
    /**
     * 256 MiB messages, 64 KiB headers, 64 segments, 1024 in flight, 8 MiB queued, 2048 ids remembered, responses
     * up to 16 KiB kept (so at most 32 MiB of kept responses per session); a connection closed at 64 MiB unsent
     * or after 15 s without reading, 10 s to set up, frames slower than 16 KiB/s after 2 s closed (a connection
     * is cheap to lose: sessions outlive it); 16384 sessions
     * per engine, 1024 per connection, 4096 per peer host; 4096 connections per portal, 512 per peer host; 8 KiB of
     * call context (metadata) per call, as gRPC allows by default; larger responses kept until acknowledged up to
     * 64 MiB per session and 512 MiB per engine; 1024 sessions and 65536 executing calls per principal (a
     * principal is often a whole service's identity, shared by all its instances: these stop one stolen or runaway
     * identity from taking the engine, not a busy one from working); 8 failed authentications per host and portal
     * in 10 s (more than a client with a wrong or expired token makes: it fails at its first set-up and reports it).
     */
    public static final Limits DEFAULT = new Limits(256 << 20, 64 << 10, 64, 1024, 8 << 20, 2048, 16 << 10,
        64L << 20, Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2), 16 << 10,
        16384, 1024, 4096, 4096, 512, 8 << 10, 64L << 20, 512L << 20, 1024, 65536, 8,
        Duration.ofSeconds(10));

    public Limits
    {
        positive("maxMessageBytes", maxMessageBytes);
        positive("maxHeaderBytes", maxHeaderBytes);
        positive("maxSegments", maxSegments);
        positive("maxInFlight", maxInFlight);
        positive("maxQueuedBytes", maxQueuedBytes);
        positive("dedupWindow", dedupWindow);
        if (Integer.bitCount(dedupWindow) != 1)
        {
            throw new IllegalArgumentException("dedupWindow must be a power of two, was " + dedupWindow);
        }
        if (dedupWindow < maxInFlight)
        {
            throw new IllegalArgumentException(
                "dedupWindow (" + dedupWindow + ") must be at least maxInFlight (" + maxInFlight + ")");
        }
        if (retainedResponseBytes < 0)
        {
            throw new IllegalArgumentException("retainedResponseBytes must be >= 0, was " + retainedResponseBytes);
        }
        if (maxSegments > 0xFFFF)
        {
            throw new IllegalArgumentException("maxSegments must be <= 65535, was " + maxSegments);
        }
        if (maxUnsentBytes < maxQueuedBytes)
        {
            throw new IllegalArgumentException("maxUnsentBytes (" + maxUnsentBytes + ") must be at least " +
                "maxQueuedBytes (" + maxQueuedBytes + ")");
        }
        positive("writeStallTimeout", writeStallTimeout);
        positive("handshakeTimeout", handshakeTimeout);
        positive("incompleteFrameTimeout", incompleteFrameTimeout);
        positive("minReceiveRate", minReceiveRate);
        positive("maxSessions", maxSessions);
        positive("maxSessionsPerConnection", maxSessionsPerConnection);
        positive("maxSessionsPerPeer", maxSessionsPerPeer);
        positive("maxConnectionsPerPortal", maxConnectionsPerPortal);
        positive("maxConnectionsPerPeer", maxConnectionsPerPeer);
        positive("maxMetadataBytes", maxMetadataBytes);
        positive("maxSessionsPerPrincipal", maxSessionsPerPrincipal);
        positive("maxInFlightPerPrincipal", maxInFlightPerPrincipal);
        positive("maxAuthenticationFailuresPerHost", maxAuthenticationFailuresPerHost);
        positive("authenticationFailureInterval", authenticationFailureInterval);
        if (maxMetadataBytes > 0xFFFF)
        {
            throw new IllegalArgumentException("maxMetadataBytes must be <= 65535, was " + maxMetadataBytes);
        }
        if (maxRetainedBytesPerSession < 0 || maxRetainedBytes < 0)
        {
            throw new IllegalArgumentException("maxRetainedBytesPerSession and maxRetainedBytes must be >= 0, were " +
                maxRetainedBytesPerSession + " and " + maxRetainedBytes);
        }
    }

    public Limits withMaxMessageBytes(final int value)
    {
        return copy().maxMessageBytes(value).build();
    }

    public Limits withMaxHeaderBytes(final int value)
    {
        return copy().maxHeaderBytes(value).build();
    }

    /** Also widens the dedup window to the next power of two at least {@code value}, where it is smaller. */
    public Limits withMaxInFlight(final int value)
    {
        return copy().maxInFlight(value)
            .dedupWindow(Math.max(dedupWindow, Integer.highestOneBit(Math.max(1, value - 1)) << 1)).build();
    }

    /** Also raises {@code maxUnsentBytes} to {@code value}, where it is smaller. */
    public Limits withMaxQueuedBytes(final int value)
    {
        return copy().maxQueuedBytes(value).maxUnsentBytes(Math.max(maxUnsentBytes, value)).build();
    }

    public Limits withMaxUnsentBytes(final long value)
    {
        return copy().maxUnsentBytes(value).build();
    }

    public Limits withWriteStallTimeout(final Duration value)
    {
        return copy().writeStallTimeout(value).build();
    }

    public Limits withHandshakeTimeout(final Duration value)
    {
        return copy().handshakeTimeout(value).build();
    }

    public Limits withIncompleteFrameTimeout(final Duration value)
    {
        return copy().incompleteFrameTimeout(value).build();
    }

    public Limits withMinReceiveRate(final int bytesPerSecond)
    {
        return copy().minReceiveRate(bytesPerSecond).build();
    }

    public Limits withMaxSessions(final int value)
    {
        return copy().maxSessions(value).build();
    }

    public Limits withMaxSessionsPerConnection(final int value)
    {
        return copy().maxSessionsPerConnection(value).build();
    }

    public Limits withMaxSessionsPerPeer(final int value)
    {
        return copy().maxSessionsPerPeer(value).build();
    }

    public Limits withMaxConnectionsPerPortal(final int value)
    {
        return copy().maxConnectionsPerPortal(value).build();
    }

    public Limits withMaxConnectionsPerPeer(final int value)
    {
        return copy().maxConnectionsPerPeer(value).build();
    }

    public Limits withMaxSegments(final int value)
    {
        return copy().maxSegments(value).build();
    }

    /** A power of two, at least {@code maxInFlight}. */
    public Limits withDedupWindow(final int value)
    {
        return copy().dedupWindow(value).build();
    }

    public Limits withRetainedResponseBytes(final int value)
    {
        return copy().retainedResponseBytes(value).build();
    }

    public Limits withMaxMetadataBytes(final int value)
    {
        return copy().maxMetadataBytes(value).build();
    }

    /** 0 keeps no response larger than {@code retainedResponseBytes} (a retransmit of one gets RESPONSE_LOST). */
    public Limits withMaxRetainedBytesPerSession(final long value)
    {
        return copy().maxRetainedBytesPerSession(value).build();
    }

    public Limits withMaxRetainedBytes(final long value)
    {
        return copy().maxRetainedBytes(value).build();
    }

    public Limits withMaxSessionsPerPrincipal(final int value)
    {
        return copy().maxSessionsPerPrincipal(value).build();
    }

    public Limits withMaxInFlightPerPrincipal(final int value)
    {
        return copy().maxInFlightPerPrincipal(value).build();
    }

    public Limits withMaxAuthenticationFailuresPerHost(final int value)
    {
        return copy().maxAuthenticationFailuresPerHost(value).build();
    }

    public Limits withAuthenticationFailureInterval(final Duration value)
    {
        return copy().authenticationFailureInterval(value).build();
    }

    private Copy copy()
    {
        return new Copy(this);
    }

    private static void positive(final String name, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }

    private static void positive(final String name, final Duration value)
    {
        if (value == null || value.isNegative() || value.isZero())
        {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    /** The components of a {@link Limits} being changed one by one: the withers' single way to a new one. */
    private static final class Copy
    {
        private int maxMessageBytes;
        private int maxHeaderBytes;
        private int maxSegments;
        private int maxInFlight;
        private int maxQueuedBytes;
        private int dedupWindow;
        private int retainedResponseBytes;
        private long maxUnsentBytes;
        private Duration writeStallTimeout;
        private Duration handshakeTimeout;
        private Duration incompleteFrameTimeout;
        private int minReceiveRate;
        private int maxSessions;
        private int maxSessionsPerConnection;
        private int maxSessionsPerPeer;
        private int maxConnectionsPerPortal;
        private int maxConnectionsPerPeer;
        private int maxMetadataBytes;
        private long maxRetainedBytesPerSession;
        private long maxRetainedBytes;
        private int maxSessionsPerPrincipal;
        private int maxInFlightPerPrincipal;
        private int maxAuthenticationFailuresPerHost;
        private Duration authenticationFailureInterval;

        Copy(final Limits from)
        {
            maxMessageBytes = from.maxMessageBytes;
            maxHeaderBytes = from.maxHeaderBytes;
            maxSegments = from.maxSegments;
            maxInFlight = from.maxInFlight;
            maxQueuedBytes = from.maxQueuedBytes;
            dedupWindow = from.dedupWindow;
            retainedResponseBytes = from.retainedResponseBytes;
            maxUnsentBytes = from.maxUnsentBytes;
            writeStallTimeout = from.writeStallTimeout;
            handshakeTimeout = from.handshakeTimeout;
            incompleteFrameTimeout = from.incompleteFrameTimeout;
            minReceiveRate = from.minReceiveRate;
            maxSessions = from.maxSessions;
            maxSessionsPerConnection = from.maxSessionsPerConnection;
            maxSessionsPerPeer = from.maxSessionsPerPeer;
            maxConnectionsPerPortal = from.maxConnectionsPerPortal;
            maxConnectionsPerPeer = from.maxConnectionsPerPeer;
            maxMetadataBytes = from.maxMetadataBytes;
            maxRetainedBytesPerSession = from.maxRetainedBytesPerSession;
            maxRetainedBytes = from.maxRetainedBytes;
            maxSessionsPerPrincipal = from.maxSessionsPerPrincipal;
            maxInFlightPerPrincipal = from.maxInFlightPerPrincipal;
            maxAuthenticationFailuresPerHost = from.maxAuthenticationFailuresPerHost;
            authenticationFailureInterval = from.authenticationFailureInterval;
        }

        Copy maxMessageBytes(final int value)
        {
            maxMessageBytes = value;
            return this;
        }

        Copy maxHeaderBytes(final int value)
        {
            maxHeaderBytes = value;
            return this;
        }

        Copy maxInFlight(final int value)
        {
            maxInFlight = value;
            return this;
        }

        Copy maxQueuedBytes(final int value)
        {
            maxQueuedBytes = value;
            return this;
        }

        Copy dedupWindow(final int value)
        {
            dedupWindow = value;
            return this;
        }

        Copy retainedResponseBytes(final int value)
        {
            retainedResponseBytes = value;
            return this;
        }

        Copy maxUnsentBytes(final long value)
        {
            maxUnsentBytes = value;
            return this;
        }

        Copy writeStallTimeout(final Duration value)
        {
            writeStallTimeout = value;
            return this;
        }

        Copy handshakeTimeout(final Duration value)
        {
            handshakeTimeout = value;
            return this;
        }

        Copy incompleteFrameTimeout(final Duration value)
        {
            incompleteFrameTimeout = value;
            return this;
        }

        Copy minReceiveRate(final int value)
        {
            minReceiveRate = value;
            return this;
        }

        Copy maxSessions(final int value)
        {
            maxSessions = value;
            return this;
        }

        Copy maxSessionsPerConnection(final int value)
        {
            maxSessionsPerConnection = value;
            return this;
        }

        Copy maxSessionsPerPeer(final int value)
        {
            maxSessionsPerPeer = value;
            return this;
        }

        Copy maxConnectionsPerPortal(final int value)
        {
            maxConnectionsPerPortal = value;
            return this;
        }

        Copy maxConnectionsPerPeer(final int value)
        {
            maxConnectionsPerPeer = value;
            return this;
        }

        Copy maxSegments(final int value)
        {
            maxSegments = value;
            return this;
        }

        Copy maxMetadataBytes(final int value)
        {
            maxMetadataBytes = value;
            return this;
        }

        Copy maxRetainedBytesPerSession(final long value)
        {
            maxRetainedBytesPerSession = value;
            return this;
        }

        Copy maxRetainedBytes(final long value)
        {
            maxRetainedBytes = value;
            return this;
        }

        Copy maxSessionsPerPrincipal(final int value)
        {
            maxSessionsPerPrincipal = value;
            return this;
        }

        Copy maxInFlightPerPrincipal(final int value)
        {
            maxInFlightPerPrincipal = value;
            return this;
        }

        Copy maxAuthenticationFailuresPerHost(final int value)
        {
            maxAuthenticationFailuresPerHost = value;
            return this;
        }

        Copy authenticationFailureInterval(final Duration value)
        {
            authenticationFailureInterval = value;
            return this;
        }

        Limits build()
        {
            return new Limits(maxMessageBytes, maxHeaderBytes, maxSegments, maxInFlight, maxQueuedBytes, dedupWindow,
                retainedResponseBytes, maxUnsentBytes, writeStallTimeout, handshakeTimeout, incompleteFrameTimeout,
                minReceiveRate, maxSessions, maxSessionsPerConnection, maxSessionsPerPeer, maxConnectionsPerPortal,
                maxConnectionsPerPeer, maxMetadataBytes, maxRetainedBytesPerSession, maxRetainedBytes,
                maxSessionsPerPrincipal, maxInFlightPerPrincipal, maxAuthenticationFailuresPerHost,
                authenticationFailureInterval);
        }
    }
}
