package io.xio.engine.transport;

import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SelectionKey;

/** Small helpers the socket-based transports share. Stateless. */
public final class Channels
{
    private static final long ACCEPT_PAUSE_NANOS = 100_000_000L;

    private Channels()
    {
    }

    /** Closes after a failure, when the failure is what gets reported. */
    public static void closeQuietly(final Closeable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final IOException ignore)
        {
            // the failure that led here is what gets reported
        }
    }

    /**
     * An accept failed (out of descriptors, say): stop accepting for 100 ms rather than spin on a key that stays
     * ready. Context thread only.
     */
    public static void pauseAccepting(final SelectionKey key, final TransportContext context, final Object portal,
        final IOException cause)
    {
        LoggerFactory.getLogger(Channels.class).warn("accept on {} failed: {}", portal, cause.toString());
        key.interestOps(0);
        context.schedule(context.nanoTime() + ACCEPT_PAUSE_NANOS, () ->
        {
            if (key.isValid())
            {
                key.interestOps(SelectionKey.OP_ACCEPT);
            }
        });
    }
}
