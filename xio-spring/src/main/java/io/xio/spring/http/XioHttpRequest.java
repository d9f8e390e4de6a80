package io.xio.spring.http;

import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One HTTP call as the service's call path sees it: the metadata its allow-listed headers carried, its deadline
 * (from the timeout header and the method's timeout) and whether its client went away. Its arguments arrived as
 * JSON and were decoded by {@link XioHttpCalls}, so it has no xio message: the answer goes back through the web
 * server, never through {@link #respond}, {@link #fail} or {@link #refuse}. Thread-safe: made on the web server's
 * thread, read on the service's worker, cancelled from either.
 */
final class XioHttpRequest implements InboundRequest
{
    private static final Runnable NONE = () -> { };
    private static final Runnable CANCELLED = () -> { };

    private final Session session;
    private final Metadata metadata;
    private final boolean oneWay;
    /** On {@link System#nanoTime()}'s clock; meaningful when {@link #hasDeadline}. */
    private final long deadline;
    private final boolean hasDeadline;
    /** What to run on cancel: {@link #NONE} until set, {@link #CANCELLED} once cancelled. */
    private final AtomicReference<Runnable> onCancel = new AtomicReference<>(NONE);

    /**
     * @param timeout how long the client waits for the answer, or null when it set no bound
     */
    XioHttpRequest(final Session session, final Metadata metadata, final boolean oneWay,
        final @Nullable Duration timeout)
    {
        this.session = session;
        this.metadata = metadata;
        this.oneWay = oneWay;
        this.hasDeadline = timeout != null;
        this.deadline = timeout == null ? 0 : System.nanoTime() + timeout.toNanos();
    }

    /** The client went away, or its deadline passed: the method's future is cancelled, its answer dropped. */
    void cancel()
    {
        final Runnable action = onCancel.getAndSet(CANCELLED);
        if (action != CANCELLED)
        {
            action.run();
        }
    }

    @Override
    public Message message()
    {
        throw new IllegalStateException("an HTTP call has no xio message: its arguments arrived as JSON");
    }

    @Override
    public Metadata metadata()
    {
        return metadata;
    }

    @Override
    public Session session()
    {
        return session;
    }

    @Override
    public long requestId()
    {
        return 0;
    }

    @Override
    public boolean isOneWay()
    {
        return oneWay;
    }

    @Override
    public void respond(final Outbound response)
    {
        throw new IllegalStateException("an HTTP call is answered by the web server");
    }

    @Override
    public void fail(final String type, final String message)
    {
        throw new IllegalStateException("an HTTP call is answered by the web server");
    }

    @Override
    public void refuse()
    {
        throw new IllegalStateException("an HTTP call is answered by the web server");
    }

    @Override
    public boolean hasDeadline()
    {
        return hasDeadline;
    }

    @Override
    public long deadline()
    {
        return deadline;
    }

    @Override
    public @Nullable Duration timeRemaining()
    {
        return hasDeadline ? Duration.ofNanos(Math.max(0, deadline - System.nanoTime())) : null;
    }

    @Override
    public boolean isExpired()
    {
        return hasDeadline && deadline - System.nanoTime() <= 0;
    }

    @Override
    public boolean refuseIfExpired()
    {
        return isExpired();
    }

    @Override
    public boolean isCancelled()
    {
        return onCancel.get() == CANCELLED;
    }

    @Override
    public void onCancel(final Runnable action)
    {
        if (!onCancel.compareAndSet(NONE, action) && onCancel.get() == CANCELLED)
        {
            action.run();
        }
    }
}
