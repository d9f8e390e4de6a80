package io.xio.engine.session;

import io.xio.engine.LeakTracker;
import io.xio.engine.Message;
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
        <T> XioFuture<T> newFuture(long requestId, boolean receipt, long spinNanos);

        void onCancel(XioFuture<?> future, Runnable action);

        void cancelAnswered(XioFuture<?> future, boolean aborted);

        void buffersReleased(XioFuture<?> future);

        void receiptArrived(XioFuture<?> future);
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
