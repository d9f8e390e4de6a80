package io.xio.cli;

import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamListener;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.XioUri;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

import java.io.PrintStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A call of a server-streaming method as the command line makes it: opens the stream, then prints each message the
 * server sends as one line of compact JSON (JSON Lines), flushed, on the command's thread. It asks the server for a
 * message only once one is printed, keeping {@link #AHEAD} asked for, so a slow terminal or pipe holds the server back
 * instead of filling memory here. The stream ends with the server's completion or failure, or is cancelled: after
 * {@code --max-messages}, on an interrupt (Ctrl-C, {@link ShutdownInterrupt}), when stdout fails. One use.
 */
final class StreamPrinter
{
    /** How many messages are asked for ahead of the one being printed: enough that printing rarely waits. */
    static final int AHEAD = 16;

    private final XioUri uri;
    private final PrintStream out;
    /** Values, then one {@link End}: at most {@link #AHEAD} values, as no more were asked for. */
    private final BlockingQueue<Object> arrived = new LinkedBlockingQueue<>();

    /** The stream's last signal; {@code failure} is null when it completed. */
    private record End(Throwable failure)
    {
    }

    private StreamPrinter(final XioUri uri, final PrintStream out)
    {
        this.uri = uri;
        this.out = out;
    }

    /**
     * Opens a stream on {@code session} with {@code open} (a call's request) and prints at most {@code max} of its
     * messages on {@code out}.
     *
     * @param options the stream's deadline, if it has one
     * @return {@link Main#OK} once the stream completed, or {@code max} messages were printed
     * @throws Main.CallFailed when the stream failed, was interrupted, or stdout failed
     */
    static int print(final Session session, final Outbound open, final CallOptions options, final long max,
        final PrintStream out)
    {
        final StreamPrinter printer = new StreamPrinter(session.uri(), out);
        final StreamCall stream = session.openStream(open, options, printer.new Arrivals());
        stream.halfClose(); // the caller sends nothing more, and the server may know it
        try
        {
            return printer.print(stream, max);
        }
        finally
        {
            stream.cancel(); // nothing once the stream ended; else the server stops producing for nobody
        }
    }

    private int print(final StreamCall stream, final long max)
    {
        long requested = Math.min(AHEAD, max);
        stream.request(requested);
        long printed = 0;
        try
        {
            while (printed < max)
            {
                final Object next = arrived.take();
                if (next instanceof End end)
                {
                    if (end.failure() == null)
                    {
                        return Main.OK;
                    }
                    throw failed(end.failure(), printed);
                }
                out.println(next); // a JsonNode's text is compact JSON: one line
                out.flush();
                if (out.checkError())
                {
                    throw new Main.CallFailed("cannot write to stdout; cancelled the stream from " + uri + " after " +
                        printed + " message(s)");
                }
                printed++;
                if (requested < max)
                {
                    stream.request(1);
                    requested++;
                }
            }
            return Main.OK;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new Main.CallFailed("interrupted: cancelled the stream from " + uri + " after " + printed +
                " message(s)");
        }
    }

    private Main.CallFailed failed(final Throwable failure, final long printed)
    {
        if (failure instanceof Main.CallFailed undecodable)
        {
            return undecodable;
        }
        if (failure instanceof XioTimeoutException)
        {
            return new Main.CallFailed("the stream from " + uri + " reached its deadline after " + printed +
                " message(s): " + failure.getMessage());
        }
        return new Main.CallFailed(Main.failure(uri, failure));
    }

    /** Hands the stream's signals to the command's thread; on the stream's context thread, so never blocks. */
    private final class Arrivals implements StreamListener
    {
        @Override
        public void onMessage(final Message message)
        {
            try (message)
            {
                final JsonNode value = Main.value(message, false, uri);
                arrived.add(value == null ? JsonNodeFactory.instance.nullNode() : value);
            }
            catch (final Main.CallFailed undecodable)
            {
                arrived.add(new End(undecodable)); // printed as it is; the stream is cancelled then
            }
        }

        @Override
        public void onComplete(final Metadata trailers)
        {
            arrived.add(new End(null));
        }

        @Override
        public void onError(final Throwable error)
        {
            arrived.add(new End(error));
        }
    }
}
