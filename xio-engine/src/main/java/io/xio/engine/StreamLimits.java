package io.xio.engine;

import java.util.Objects;

/**
 * What streams may cost a side ({@link Limits#streams()}): how many may be open per session, per connection and in the
 * engine, and each receiving direction's window, in messages and in bytes, which bounds what a stream holds for an
 * application that does not read. Each window's bytes are set aside from the session's and the engine's budgets when
 * the stream opens, so that many streams cannot add up to more than those: an open over any limit is refused
 * ({@code PeerRefusal.STREAM_LIMIT}). A sender holds no more unacknowledged messages than its own window allows,
 * whatever credit the peer grants. Immutable; made from {@link #DEFAULT} with a {@link #builder()}.
 */
public final class StreamLimits
{
    /**
     * 256 open streams per session, 1024 per connection, 1024 from one peer host (a quarter of what the engine's window
     * budget allows with the default windows, so that one host cannot take them all), 65536 in the engine; windows of
     * 1024 messages and 256 KiB, so that 256 streams' windows fit the 64 MiB a session may set aside, and 4096 streams'
     * the engine's 1 GiB (more streams need smaller windows, or larger budgets). A stream of large messages (1 MiB
     * chunks, say) wants a larger window: a message larger than the window goes only once the one before it was taken.
     */
    public static final StreamLimits DEFAULT = new StreamLimits(256, 1024, 1024, 65536, 1024, 256 << 10, 64L << 20,
        1L << 30);

    /** Most messages a sender keeps unacknowledged, and the largest window it takes: the size of a stream's queue. */
    public static final int MAX_WINDOW_MESSAGES = 1 << 16;

    private final int maxStreamsPerSession;
    private final int maxStreamsPerConnection;
    private final int maxStreamsPerPeer;
    private final int maxStreams;
    private final int windowMessages;
    private final int windowBytes;
    private final long maxWindowBytesPerSession;
    private final long maxWindowBytes;

    private StreamLimits(final int maxStreamsPerSession, final int maxStreamsPerConnection,
        final int maxStreamsPerPeer, final int maxStreams, final int windowMessages, final int windowBytes,
        final long maxWindowBytesPerSession, final long maxWindowBytes)
    {
        this.maxStreamsPerSession = positive("maxStreamsPerSession", maxStreamsPerSession);
        this.maxStreamsPerConnection = positive("maxStreamsPerConnection", maxStreamsPerConnection);
        this.maxStreamsPerPeer = positive("maxStreamsPerPeer", maxStreamsPerPeer);
        this.maxStreams = positive("maxStreams", maxStreams);
        this.windowMessages = positive("windowMessages", windowMessages);
        this.windowBytes = positive("windowBytes", windowBytes);
        this.maxWindowBytesPerSession = positive("maxWindowBytesPerSession", maxWindowBytesPerSession);
        this.maxWindowBytes = positive("maxWindowBytes", maxWindowBytes);
        if (windowMessages > MAX_WINDOW_MESSAGES)
        {
            throw new IllegalArgumentException("windowMessages must be <= " + MAX_WINDOW_MESSAGES + ", was " +
                windowMessages);
        }
        if (windowBytes > maxWindowBytesPerSession || maxWindowBytesPerSession > maxWindowBytes)
        {
            throw new IllegalArgumentException("windowBytes (" + windowBytes + ") must be at most " +
                "maxWindowBytesPerSession (" + maxWindowBytesPerSession + "), and that at most maxWindowBytes (" +
                maxWindowBytes + ")");
        }
    }

    public static Builder builder()
    {
        return DEFAULT.toBuilder();
    }

    public Builder toBuilder()
    {
        return new Builder(this);
    }

    /** Streams open at once on one session, both sides' together. */
    public int maxStreamsPerSession()
    {
        return maxStreamsPerSession;
    }

    /** Streams the peer may open on one connection (counted where they opened). */
    public int maxStreamsPerConnection()
    {
        return maxStreamsPerConnection;
    }

    /** Streams the peers on one host (as maxSessionsPerPeer counts hosts) may have opened and open at once. */
    public int maxStreamsPerPeer()
    {
        return maxStreamsPerPeer;
    }

    /** Streams open at once in the engine. */
    public int maxStreams()
    {
        return maxStreams;
    }

    /** Messages a receiving direction holds for its application at most; what its sender may have unacknowledged. */
    public int windowMessages()
    {
        return windowMessages;
    }

    /**
     * Bytes (of whole frames) a receiving direction holds at most, but for one message: a message may start while any
     * credit is left, so that a message larger than the window still goes, one at a time.
     */
    public int windowBytes()
    {
        return windowBytes;
    }

    /** Bytes of receive windows one session's streams may have set aside together. */
    public long maxWindowBytesPerSession()
    {
        return maxWindowBytesPerSession;
    }

    /** Bytes of receive windows the engine's streams may have set aside together. */
    public long maxWindowBytes()
    {
        return maxWindowBytes;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof StreamLimits that && maxStreamsPerSession == that.maxStreamsPerSession &&
            maxStreamsPerConnection == that.maxStreamsPerConnection && maxStreamsPerPeer == that.maxStreamsPerPeer &&
            maxStreams == that.maxStreams &&
            windowMessages == that.windowMessages && windowBytes == that.windowBytes &&
            maxWindowBytesPerSession == that.maxWindowBytesPerSession && maxWindowBytes == that.maxWindowBytes;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(maxStreamsPerSession, maxStreamsPerConnection, maxStreamsPerPeer, maxStreams,
            windowMessages, windowBytes, maxWindowBytesPerSession, maxWindowBytes);
    }

    @Override
    public String toString()
    {
        return "StreamLimits[maxStreamsPerSession=" + maxStreamsPerSession + ", maxStreamsPerConnection=" +
            maxStreamsPerConnection + ", maxStreamsPerPeer=" + maxStreamsPerPeer + ", maxStreams=" + maxStreams +
            ", windowMessages=" + windowMessages + ", windowBytes=" + windowBytes + ", maxWindowBytesPerSession=" +
            maxWindowBytesPerSession +
            ", maxWindowBytes=" + maxWindowBytes + "]";
    }

    private static int positive(final String name, final int value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
        return value;
    }

    private static long positive(final String name, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
        return value;
    }

    /** Stream limits being set one by one; {@link #build()} checks them together. One thread builds. */
    public static final class Builder
    {
        private int maxStreamsPerSession;
        private int maxStreamsPerConnection;
        private int maxStreamsPerPeer;
        private int maxStreams;
        private int windowMessages;
        private int windowBytes;
        private long maxWindowBytesPerSession;
        private long maxWindowBytes;

        private Builder(final StreamLimits from)
        {
            maxStreamsPerSession = from.maxStreamsPerSession;
            maxStreamsPerConnection = from.maxStreamsPerConnection;
            maxStreamsPerPeer = from.maxStreamsPerPeer;
            maxStreams = from.maxStreams;
            windowMessages = from.windowMessages;
            windowBytes = from.windowBytes;
            maxWindowBytesPerSession = from.maxWindowBytesPerSession;
            maxWindowBytes = from.maxWindowBytes;
        }

        public Builder maxStreamsPerSession(final int value)
        {
            maxStreamsPerSession = value;
            return this;
        }

        public Builder maxStreamsPerConnection(final int value)
        {
            maxStreamsPerConnection = value;
            return this;
        }

        public Builder maxStreamsPerPeer(final int value)
        {
            maxStreamsPerPeer = value;
            return this;
        }

        public Builder maxStreams(final int value)
        {
            maxStreams = value;
            return this;
        }

        public Builder windowMessages(final int value)
        {
            windowMessages = value;
            return this;
        }

        public Builder windowBytes(final int value)
        {
            windowBytes = value;
            return this;
        }

        public Builder maxWindowBytesPerSession(final long value)
        {
            maxWindowBytesPerSession = value;
            return this;
        }

        public Builder maxWindowBytes(final long value)
        {
            maxWindowBytes = value;
            return this;
        }

        /** The limits, checked: throws IllegalArgumentException naming the first that is out of range. */
        public StreamLimits build()
        {
            return new StreamLimits(maxStreamsPerSession, maxStreamsPerConnection, maxStreamsPerPeer, maxStreams,
                windowMessages, windowBytes, maxWindowBytesPerSession, maxWindowBytes);
        }
    }
}
