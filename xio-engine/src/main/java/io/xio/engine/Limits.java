package io.xio.engine;

import java.time.Duration;

/**
 * Bounds that keep memory finite and reject hostile input. Every length and count read from the wire is
 * checked against these before it is used, and every peer, however it behaves, costs at most what they allow.
 * Immutable; made from {@link #DEFAULT} with a {@link #builder()} or the {@code with} methods, so that a new limit
 * is no breaking change.
 */
public final class Limits
{
    private final int maxMessageBytes;
    private final int maxHeaderBytes;
    private final int maxSegments;
    private final int maxInFlight;
    private final int maxQueuedBytes;
    private final int dedupWindow;
    private final int retainedResponseBytes;
    private final long maxUnsentBytes;
    private final Duration writeStallTimeout;
    private final Duration handshakeTimeout;
    private final Duration incompleteFrameTimeout;
    private final int minReceiveRate;
    private final int maxSessions;
    private final int maxSessionsPerConnection;
    private final int maxSessionsPerPeer;
    private final int maxConnectionsPerPortal;
    private final int maxConnectionsPerPeer;
    private final int maxMetadataBytes;
    private final long maxRetainedBytesPerSession;
    private final long maxRetainedBytes;
    private final int maxSessionsPerPrincipal;
    private final int maxInFlightPerPrincipal;
    private final int maxAuthenticationFailuresPerHost;
    private final Duration authenticationFailureInterval;
    private final StreamLimits streams;

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
        Duration.ofSeconds(10), StreamLimits.DEFAULT);

    private Limits(
        final int maxMessageBytes,
        final int maxHeaderBytes,
        final int maxSegments,
        final int maxInFlight,
        final int maxQueuedBytes,
        final int dedupWindow,
        final int retainedResponseBytes,
        final long maxUnsentBytes,
        final Duration writeStallTimeout,
        final Duration handshakeTimeout,
        final Duration incompleteFrameTimeout,
        final int minReceiveRate,
        final int maxSessions,
        final int maxSessionsPerConnection,
        final int maxSessionsPerPeer,
        final int maxConnectionsPerPortal,
        final int maxConnectionsPerPeer,
        final int maxMetadataBytes,
        final long maxRetainedBytesPerSession,
        final long maxRetainedBytes,
        final int maxSessionsPerPrincipal,
        final int maxInFlightPerPrincipal,
        final int maxAuthenticationFailuresPerHost,
        final Duration authenticationFailureInterval,
        final StreamLimits streams)
    {
        this.maxMessageBytes = maxMessageBytes;
        this.maxHeaderBytes = maxHeaderBytes;
        this.maxSegments = maxSegments;
        this.maxInFlight = maxInFlight;
        this.maxQueuedBytes = maxQueuedBytes;
        this.dedupWindow = dedupWindow;
        this.retainedResponseBytes = retainedResponseBytes;
        this.maxUnsentBytes = maxUnsentBytes;
        this.writeStallTimeout = writeStallTimeout;
        this.handshakeTimeout = handshakeTimeout;
        this.incompleteFrameTimeout = incompleteFrameTimeout;
        this.minReceiveRate = minReceiveRate;
        this.maxSessions = maxSessions;
        this.maxSessionsPerConnection = maxSessionsPerConnection;
        this.maxSessionsPerPeer = maxSessionsPerPeer;
        this.maxConnectionsPerPortal = maxConnectionsPerPortal;
        this.maxConnectionsPerPeer = maxConnectionsPerPeer;
        this.maxMetadataBytes = maxMetadataBytes;
        this.maxRetainedBytesPerSession = maxRetainedBytesPerSession;
        this.maxRetainedBytes = maxRetainedBytes;
        this.maxSessionsPerPrincipal = maxSessionsPerPrincipal;
        this.maxInFlightPerPrincipal = maxInFlightPerPrincipal;
        this.maxAuthenticationFailuresPerHost = maxAuthenticationFailuresPerHost;
        this.authenticationFailureInterval = authenticationFailureInterval;
        this.streams = java.util.Objects.requireNonNull(streams, "streams");
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

    /** Largest frame accepted or sent (header, application header and data segments). */
    public int maxMessageBytes()
    {
        return maxMessageBytes;
    }

    /** Largest application header. */
    public int maxHeaderBytes()
    {
        return maxHeaderBytes;
    }

    /** Most data segments in one message. */
    public int maxSegments()
    {
        return maxSegments;
    }

    /**
     * Most requests a session may have awaiting responses (per direction); also the most a receiver executes at once
     * for one session.
     */
    public int maxInFlight()
    {
        return maxInFlight;
    }

    /**
     * Unsent bytes above which a connection takes no new requests to send and starts no new calls from its peer until
     * the peer has read enough.
     */
    public int maxQueuedBytes()
    {
        return maxQueuedBytes;
    }

    /** How many recent request ids per session the receiver remembers (power of two). */
    public int dedupWindow()
    {
        return dedupWindow;
    }

    /** Largest response kept for a resend to a retransmitted request. */
    public int retainedResponseBytes()
    {
        return retainedResponseBytes;
    }

    /** Unsent bytes at which a connection is closed: what a peer that stops reading may cost. */
    public long maxUnsentBytes()
    {
        return maxUnsentBytes;
    }

    /** How long a peer may read nothing while we have bytes for it before it is disconnected. */
    public Duration writeStallTimeout()
    {
        return writeStallTimeout;
    }

    /**
     * How long an accepted connection may go without carrying a session (before its first set-up, or after its last
     * session ended) before it is closed.
     */
    public Duration handshakeTimeout()
    {
        return handshakeTimeout;
    }

    /** How long a frame may take to arrive before its rate is checked. */
    public Duration incompleteFrameTimeout()
    {
        return incompleteFrameTimeout;
    }

    /**
     * Bytes per second a frame that takes longer than {@code incompleteFrameTimeout} must have arrived at, on average;
     * a slower one closes its connection.
     */
    public int minReceiveRate()
    {
        return minReceiveRate;
    }

    /** Most sessions an engine accepts, all portals together. */
    public int maxSessions()
    {
        return maxSessions;
    }

    /** Most sessions one accepted connection carries. */
    public int maxSessionsPerConnection()
    {
        return maxSessionsPerConnection;
    }

    /** Most sessions an engine accepts from one peer address (host). */
    public int maxSessionsPerPeer()
    {
        return maxSessionsPerPeer;
    }

    /** Most connections a portal holds open at once. */
    public int maxConnectionsPerPortal()
    {
        return maxConnectionsPerPortal;
    }

    /** Most connections an engine accepts from one peer address (host). */
    public int maxConnectionsPerPeer()
    {
        return maxConnectionsPerPeer;
    }

    /**
     * Largest call context (deadline and metadata entries, {@link Metadata#encodedLength()}) of one request or
     * response, sent or received; at most 65535.
     */
    public int maxMetadataBytes()
    {
        return maxMetadataBytes;
    }

    /**
     * Bytes of responses larger than {@code retainedResponseBytes} one session keeps by reference for retransmits until
     * the requester acknowledges them; a response that would pass it is not kept (a retransmit of it gets
     * RESPONSE_LOST).
     */
    public long maxRetainedBytesPerSession()
    {
        return maxRetainedBytesPerSession;
    }

    /** The same, for all sessions of the engine together. */
    public long maxRetainedBytes()
    {
        return maxRetainedBytes;
    }

    /**
     * Most sessions an engine accepts for one authenticated principal (by {@link java.security.Principal#getName()}, as
     * the acceptor named it in {@link SetupDecision#accept(java.security.Principal)}), all peers together.
     */
    public int maxSessionsPerPrincipal()
    {
        return maxSessionsPerPrincipal;
    }

    /**
     * Most calls executing at once for one principal, all its sessions together; a call over it is answered
     * BACK_PRESSURE, as one over a session's {@code maxInFlight} is.
     */
    public int maxInFlightPerPrincipal()
    {
        return maxInFlightPerPrincipal;
    }

    /**
     * Failed authentications (the acceptor said {@link SetupDecision#unauthenticated}, or threw) one peer host may have
     * at one portal within {@code authenticationFailureInterval}; its further set-ups there are refused without asking
     * the acceptor until that interval has passed. All clients behind one NAT or proxy share the host's tries, and an
     * IPv6 host counts as its /64: raise it where many clients come through one address.
     */
    public int maxAuthenticationFailuresPerHost()
    {
        return maxAuthenticationFailuresPerHost;
    }

    /** How long a host's failed authentications count, from its first. */
    public Duration authenticationFailureInterval()
    {
        return authenticationFailureInterval;
    }

    /** What streams may cost: how many may be open, and each one's window ({@link StreamLimits}). */
    public StreamLimits streams()
    {
        return streams;
    }

    /** A builder starting from {@link #DEFAULT}. */
    public static Builder builder()
    {
        return DEFAULT.toBuilder();
    }

    /** A builder starting from these limits. */
    public Builder toBuilder()
    {
        return new Builder(this);
    }

    public Limits withMaxMessageBytes(final int value)
    {
        return toBuilder().maxMessageBytes(value).build();
    }

    public Limits withMaxHeaderBytes(final int value)
    {
        return toBuilder().maxHeaderBytes(value).build();
    }

    /** Also widens the dedup window to the next power of two at least {@code value}, where it is smaller. */
    public Limits withMaxInFlight(final int value)
    {
        return toBuilder().maxInFlight(value)
            .dedupWindow(Math.max(dedupWindow, Integer.highestOneBit(Math.max(1, value - 1)) << 1)).build();
    }

    /** Also raises {@code maxUnsentBytes} to {@code value}, where it is smaller. */
    public Limits withMaxQueuedBytes(final int value)
    {
        return toBuilder().maxQueuedBytes(value).maxUnsentBytes(Math.max(maxUnsentBytes, value)).build();
    }

    public Limits withMaxUnsentBytes(final long value)
    {
        return toBuilder().maxUnsentBytes(value).build();
    }

    public Limits withWriteStallTimeout(final Duration value)
    {
        return toBuilder().writeStallTimeout(value).build();
    }

    public Limits withHandshakeTimeout(final Duration value)
    {
        return toBuilder().handshakeTimeout(value).build();
    }

    public Limits withIncompleteFrameTimeout(final Duration value)
    {
        return toBuilder().incompleteFrameTimeout(value).build();
    }

    public Limits withMinReceiveRate(final int bytesPerSecond)
    {
        return toBuilder().minReceiveRate(bytesPerSecond).build();
    }

    public Limits withMaxSessions(final int value)
    {
        return toBuilder().maxSessions(value).build();
    }

    public Limits withMaxSessionsPerConnection(final int value)
    {
        return toBuilder().maxSessionsPerConnection(value).build();
    }

    public Limits withMaxSessionsPerPeer(final int value)
    {
        return toBuilder().maxSessionsPerPeer(value).build();
    }

    public Limits withMaxConnectionsPerPortal(final int value)
    {
        return toBuilder().maxConnectionsPerPortal(value).build();
    }

    public Limits withMaxConnectionsPerPeer(final int value)
    {
        return toBuilder().maxConnectionsPerPeer(value).build();
    }

    public Limits withMaxSegments(final int value)
    {
        return toBuilder().maxSegments(value).build();
    }

    /** A power of two, at least {@code maxInFlight}. */
    public Limits withDedupWindow(final int value)
    {
        return toBuilder().dedupWindow(value).build();
    }

    public Limits withRetainedResponseBytes(final int value)
    {
        return toBuilder().retainedResponseBytes(value).build();
    }

    public Limits withMaxMetadataBytes(final int value)
    {
        return toBuilder().maxMetadataBytes(value).build();
    }

    /** 0 keeps no response larger than {@code retainedResponseBytes} (a retransmit of one gets RESPONSE_LOST). */
    public Limits withMaxRetainedBytesPerSession(final long value)
    {
        return toBuilder().maxRetainedBytesPerSession(value).build();
    }

    public Limits withMaxRetainedBytes(final long value)
    {
        return toBuilder().maxRetainedBytes(value).build();
    }

    public Limits withMaxSessionsPerPrincipal(final int value)
    {
        return toBuilder().maxSessionsPerPrincipal(value).build();
    }

    public Limits withMaxInFlightPerPrincipal(final int value)
    {
        return toBuilder().maxInFlightPerPrincipal(value).build();
    }

    public Limits withMaxAuthenticationFailuresPerHost(final int value)
    {
        return toBuilder().maxAuthenticationFailuresPerHost(value).build();
    }

    public Limits withAuthenticationFailureInterval(final Duration value)
    {
        return toBuilder().authenticationFailureInterval(value).build();
    }

    public Limits withStreams(final StreamLimits value)
    {
        return toBuilder().streams(value).build();
    }

    @Override
    public boolean equals(final Object other)
    {
        if (this == other)
        {
            return true;
        }
        if (!(other instanceof Limits that))
        {
            return false;
        }
        return maxMessageBytes == that.maxMessageBytes &&
            maxHeaderBytes == that.maxHeaderBytes &&
            maxSegments == that.maxSegments &&
            maxInFlight == that.maxInFlight &&
            maxQueuedBytes == that.maxQueuedBytes &&
            dedupWindow == that.dedupWindow &&
            retainedResponseBytes == that.retainedResponseBytes &&
            maxUnsentBytes == that.maxUnsentBytes &&
            writeStallTimeout.equals(that.writeStallTimeout) &&
            handshakeTimeout.equals(that.handshakeTimeout) &&
            incompleteFrameTimeout.equals(that.incompleteFrameTimeout) &&
            minReceiveRate == that.minReceiveRate &&
            maxSessions == that.maxSessions &&
            maxSessionsPerConnection == that.maxSessionsPerConnection &&
            maxSessionsPerPeer == that.maxSessionsPerPeer &&
            maxConnectionsPerPortal == that.maxConnectionsPerPortal &&
            maxConnectionsPerPeer == that.maxConnectionsPerPeer &&
            maxMetadataBytes == that.maxMetadataBytes &&
            maxRetainedBytesPerSession == that.maxRetainedBytesPerSession &&
            maxRetainedBytes == that.maxRetainedBytes &&
            maxSessionsPerPrincipal == that.maxSessionsPerPrincipal &&
            maxInFlightPerPrincipal == that.maxInFlightPerPrincipal &&
            maxAuthenticationFailuresPerHost == that.maxAuthenticationFailuresPerHost &&
            authenticationFailureInterval.equals(that.authenticationFailureInterval) && streams.equals(that.streams);
    }

    @Override
    public int hashCode()
    {
        return java.util.Objects.hash(maxMessageBytes, maxHeaderBytes, maxSegments, maxInFlight, maxQueuedBytes,
            dedupWindow, retainedResponseBytes, maxUnsentBytes, writeStallTimeout, handshakeTimeout,
            incompleteFrameTimeout, minReceiveRate, maxSessions, maxSessionsPerConnection, maxSessionsPerPeer,
            maxConnectionsPerPortal, maxConnectionsPerPeer, maxMetadataBytes, maxRetainedBytesPerSession,
            maxRetainedBytes, maxSessionsPerPrincipal, maxInFlightPerPrincipal, maxAuthenticationFailuresPerHost,
            authenticationFailureInterval, streams);
    }

    @Override
    public String toString()
    {
        return "Limits[" + "maxMessageBytes=" + maxMessageBytes + ", " +
            "maxHeaderBytes=" + maxHeaderBytes + ", " +
            "maxSegments=" + maxSegments + ", " +
            "maxInFlight=" + maxInFlight + ", " +
            "maxQueuedBytes=" + maxQueuedBytes + ", " +
            "dedupWindow=" + dedupWindow + ", " +
            "retainedResponseBytes=" + retainedResponseBytes + ", " +
            "maxUnsentBytes=" + maxUnsentBytes + ", " +
            "writeStallTimeout=" + writeStallTimeout + ", " +
            "handshakeTimeout=" + handshakeTimeout + ", " +
            "incompleteFrameTimeout=" + incompleteFrameTimeout + ", " +
            "minReceiveRate=" + minReceiveRate + ", " +
            "maxSessions=" + maxSessions + ", " +
            "maxSessionsPerConnection=" + maxSessionsPerConnection + ", " +
            "maxSessionsPerPeer=" + maxSessionsPerPeer + ", " +
            "maxConnectionsPerPortal=" + maxConnectionsPerPortal + ", " +
            "maxConnectionsPerPeer=" + maxConnectionsPerPeer + ", " +
            "maxMetadataBytes=" + maxMetadataBytes + ", " +
            "maxRetainedBytesPerSession=" + maxRetainedBytesPerSession + ", " +
            "maxRetainedBytes=" + maxRetainedBytes + ", " +
            "maxSessionsPerPrincipal=" + maxSessionsPerPrincipal + ", " +
            "maxInFlightPerPrincipal=" + maxInFlightPerPrincipal + ", " +
            "maxAuthenticationFailuresPerHost=" + maxAuthenticationFailuresPerHost + ", " +
            "authenticationFailureInterval=" + authenticationFailureInterval + ", streams=" + streams + "]";
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

    /**
     * Limits being set one by one, from {@link #builder()} or {@link #toBuilder()}; {@link #build()} checks them
     * together. Not thread-safe: one thread builds.
     */
    public static final class Builder
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
        private StreamLimits streams;

        private Builder(final Limits from)
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
            streams = from.streams;
        }

        public Builder maxMessageBytes(final int value)
        {
            maxMessageBytes = value;
            return this;
        }

        public Builder maxHeaderBytes(final int value)
        {
            maxHeaderBytes = value;
            return this;
        }

        public Builder maxInFlight(final int value)
        {
            maxInFlight = value;
            return this;
        }

        public Builder maxQueuedBytes(final int value)
        {
            maxQueuedBytes = value;
            return this;
        }

        public Builder dedupWindow(final int value)
        {
            dedupWindow = value;
            return this;
        }

        public Builder retainedResponseBytes(final int value)
        {
            retainedResponseBytes = value;
            return this;
        }

        public Builder maxUnsentBytes(final long value)
        {
            maxUnsentBytes = value;
            return this;
        }

        public Builder writeStallTimeout(final Duration value)
        {
            writeStallTimeout = value;
            return this;
        }

        public Builder handshakeTimeout(final Duration value)
        {
            handshakeTimeout = value;
            return this;
        }

        public Builder incompleteFrameTimeout(final Duration value)
        {
            incompleteFrameTimeout = value;
            return this;
        }

        public Builder minReceiveRate(final int value)
        {
            minReceiveRate = value;
            return this;
        }

        public Builder maxSessions(final int value)
        {
            maxSessions = value;
            return this;
        }

        public Builder maxSessionsPerConnection(final int value)
        {
            maxSessionsPerConnection = value;
            return this;
        }

        public Builder maxSessionsPerPeer(final int value)
        {
            maxSessionsPerPeer = value;
            return this;
        }

        public Builder maxConnectionsPerPortal(final int value)
        {
            maxConnectionsPerPortal = value;
            return this;
        }

        public Builder maxConnectionsPerPeer(final int value)
        {
            maxConnectionsPerPeer = value;
            return this;
        }

        public Builder maxSegments(final int value)
        {
            maxSegments = value;
            return this;
        }

        public Builder maxMetadataBytes(final int value)
        {
            maxMetadataBytes = value;
            return this;
        }

        public Builder maxRetainedBytesPerSession(final long value)
        {
            maxRetainedBytesPerSession = value;
            return this;
        }

        public Builder maxRetainedBytes(final long value)
        {
            maxRetainedBytes = value;
            return this;
        }

        public Builder maxSessionsPerPrincipal(final int value)
        {
            maxSessionsPerPrincipal = value;
            return this;
        }

        public Builder maxInFlightPerPrincipal(final int value)
        {
            maxInFlightPerPrincipal = value;
            return this;
        }

        public Builder maxAuthenticationFailuresPerHost(final int value)
        {
            maxAuthenticationFailuresPerHost = value;
            return this;
        }

        public Builder authenticationFailureInterval(final Duration value)
        {
            authenticationFailureInterval = value;
            return this;
        }

        public Builder streams(final StreamLimits value)
        {
            streams = value;
            return this;
        }

        /** The limits, checked: throws IllegalArgumentException naming the first that is out of range. */
        public Limits build()
        {
            return new Limits(maxMessageBytes, maxHeaderBytes, maxSegments, maxInFlight, maxQueuedBytes, dedupWindow,
                retainedResponseBytes, maxUnsentBytes, writeStallTimeout, handshakeTimeout, incompleteFrameTimeout,
                minReceiveRate, maxSessions, maxSessionsPerConnection, maxSessionsPerPeer, maxConnectionsPerPortal,
                maxConnectionsPerPeer, maxMetadataBytes, maxRetainedBytesPerSession, maxRetainedBytes,
                maxSessionsPerPrincipal, maxInFlightPerPrincipal, maxAuthenticationFailuresPerHost,
                authenticationFailureInterval, streams);
        }
    }
}
