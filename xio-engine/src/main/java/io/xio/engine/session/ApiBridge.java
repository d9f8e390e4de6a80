package io.xio.engine.session;

import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.XioFuture;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;

import java.lang.invoke.MethodHandles;
import java.nio.ByteBuffer;

/**
 * How the session layer reaches the engine-only parts of API types (making and rewrapping {@link Message}s,
 * settling {@link XioFuture}s) while they stay non-public: each API class hands its accessor over from its
 * static initializer, as the JDK's SharedSecrets do, so no reflection and no public mutator is needed. The
 * package is not exported from the engine module. Any thread.
 */
public final class ApiBridge
{
    private static volatile MessageAccess messages;
    private static volatile FutureAccess futures;
    private static volatile MetadataAccess metadata;

    private ApiBridge()
    {
    }

    /** What {@link Message} lets the session layer do. */
    public interface MessageAccess
    {
        Message wrapped(Slab slab, Frame frame, LeakTracker leaks);

        Message released();

        Message rewrap(Message message, Slab slab, Frame frame, LeakTracker leaks, Runnable onClose);

        void placeIn(Message message, ByteBuffer output, int at);
    }

    /** What {@link XioFuture} lets the session layer do. */
    public interface FutureAccess
    {
        <T> XioFuture<T> newFuture(long requestId, boolean receipt, FutureOwner owner);

        /** A future to reuse, with its own response message; null when futures cannot be reused on this JVM. */
        <T> XioFuture<T> newRecyclable(FutureOwner owner, Message response);

        /** Readies a recycled future (back from {@link FutureOwner#recycle}) for request {@code requestId}. */
        void reuse(XioFuture<?> future, long requestId);

        /** A recycled future's own response message, or null. */
        Message response(XioFuture<?> future);

        /** What closing that message must run, or null. */
        Runnable onResponseClosed(XioFuture<?> future);

        void cancelAnswered(XioFuture<?> future, boolean aborted);

        /** A cancel is over: if nothing told whether it aborted the request, it is not known to have. */
        void cancelUnanswered(XioFuture<?> future);

        void buffersReleased(XioFuture<?> future);

        void receiptArrived(XioFuture<?> future);
    }

    /** What a {@link XioFuture} belongs to (its session's calls), as the future sees it. Any thread. */
    public interface FutureOwner
    {
        /** How long a blocking wait spins first. */
        long spinNanos();

        /** The application cancelled {@code future}, of request {@code requestId}. */
        void cancel(XioFuture<?> future, long requestId);

        /** A recycled future is incomplete again, for a later call. */
        void recycle(XioFuture<?> future);
    }

    /** What {@link Metadata} lets the wire codec do: read and add encoded entries without copies or checks. */
    public interface MetadataAccess
    {
        /** The key of entry {@code index}: 1 to 255 characters of one byte each. */
        String key(Metadata metadata, int index);

        /** The encoded value of entry {@code index}, not to be changed. */
        byte[] value(Metadata metadata, int index);

        /** Appends an entry decoded from the wire and checked there. */
        void append(Metadata metadata, String key, byte[] value);

        /** Makes {@code metadata} (decoded from the wire) read-only. */
        Metadata readOnly(Metadata metadata);
    }

    /** Called once, by {@link Metadata}'s static initializer. */
    public static void register(final MetadataAccess access)
    {
        if (metadata != null)
        {
            throw new IllegalStateException("Metadata access is registered already");
        }
        metadata = access;
    }

    /** For the wire codec in {@code protocol}, which is not exported either. */
    public static MetadataAccess metadata()
    {
        initialize(Metadata.class);
        return metadata;
    }

    /** Called once, by {@link Message}'s static initializer. */
    public static void register(final MessageAccess access)
    {
        if (messages != null)
        {
            throw new IllegalStateException("Message access is registered already");
        }
        messages = access;
    }

    /** Called once, by {@link XioFuture}'s static initializer. */
    public static void register(final FutureAccess access)
    {
        if (futures != null)
        {
            throw new IllegalStateException("XioFuture access is registered already");
        }
        futures = access;
    }

    static MessageAccess messages()
    {
        initialize(Message.class);
        return messages;
    }

    static FutureAccess futures()
    {
        initialize(XioFuture.class);
        return futures;
    }

    private static void initialize(final Class<?> type)
    {
        try
        {
            MethodHandles.lookup().ensureInitialized(type);
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
