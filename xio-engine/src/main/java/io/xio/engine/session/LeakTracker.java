package io.xio.engine.session;

import io.xio.engine.Message;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Remembers where every received message still unreleased was delivered, when leak detection is on
 * ({@code XioEngine.Builder#leakDetection}). Internal: the engine's {@code unreleasedMessages()} reports it.
 * Thread-safe.
 */
public final class LeakTracker
{
    private final Map<Message, Throwable> live = new ConcurrentHashMap<>();
    /** {@link #untrack}, as the message holds it: made once, and a type the API package may name. */
    private final Consumer<Message> untracker = this::untrack;

    /** A message was delivered to the application here. */
    public void track(final Message message)
    {
        live.put(message, new Throwable("message " + message.requestId() + " was received here"));
    }

    /** The message was released. */
    public void untrack(final Message message)
    {
        live.remove(message);
    }

    /** What a tracked message calls when it is released: {@link #untrack}. */
    Consumer<Message> untracker()
    {
        return untracker;
    }

    /** Throws, listing each message received and not released, unless there are none; when an engine closes. */
    public void requireAllReleased(final String engine)
    {
        final List<Throwable> unreleased = unreleased();
        if (!unreleased.isEmpty())
        {
            final IllegalStateException leak = new IllegalStateException(
                "engine " + engine + ": " + unreleased.size() + " received message(s) never released");
            unreleased.forEach(leak::addSuppressed);
            throw leak;
        }
    }

    /** Descriptions of messages received and not released, each with the stack where it was delivered. */
    public List<Throwable> unreleased()
    {
        return new ArrayList<>(live.values());
    }
}
