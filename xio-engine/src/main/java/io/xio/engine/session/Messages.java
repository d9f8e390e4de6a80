package io.xio.engine.session;

import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;

import java.nio.ByteBuffer;

/**
 * Makes and rewraps {@link Message}s for the session layer, through {@link ApiBridge} (only xio creates
 * messages). Stateless; any thread.
 */
public final class Messages
{
    private static final ApiBridge.MessageAccess ACCESS = ApiBridge.messages();

    private static final ApiBridge.MetadataAccess METADATA = ApiBridge.metadata();

    private Messages()
    {
    }

    /** A new message over the frame at {@code frame}, retaining the slab. */
    public static Message of(final Slab slab, final Frame frame, final LeakTracker leaks)
    {
        return ACCESS.wrapped(slab, frame, leaks);
    }

    /** A released message to {@link #rewrap} again and again. */
    public static Message released()
    {
        return ACCESS.released();
    }

    /** Makes the released {@code message} the one in {@code frame}; {@code onClose} (may be null) runs on close. */
    public static Message rewrap(final Message message, final Slab slab, final Frame frame, final LeakTracker leaks,
        final Runnable onClose)
    {
        return ACCESS.rewrap(message, slab, frame, leaks, onClose);
    }

    /** Says that the message's data segments lie in {@code output} back to back from index {@code at}. */
    public static void placeIn(final Message message, final ByteBuffer output, final int at)
    {
        ACCESS.placeIn(message, output, at);
    }

    /**
     * Makes the message's metadata read-only: it is read again whenever the message is written (a retransmit
     * too), so a change the application makes afterwards must not reach this call, or tear a frame being encoded.
     */
    public static void sealMetadata(final Outbound message)
    {
        final Metadata metadata = message.metadata();
        if (metadata != null && !metadata.isReadOnly())
        {
            METADATA.readOnly(metadata);
        }
    }
}
