package io.xio.engine.support;

import io.xio.engine.InboundRequest;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.ServerInterceptor;
import io.xio.engine.Session;

import java.time.Duration;

/**
 * An {@link InboundRequest} that passes every call to another one: the base for {@link ServerInterceptor}s that
 * see or change the answer ({@link #respond}, {@link #fail(String, String)} (every error answer goes through it),
 * {@link #refuse}) by overriding those methods. The same threading rules as the request it wraps.
 */
public class ForwardingInboundRequest implements InboundRequest
{
    private final InboundRequest delegate;

    public ForwardingInboundRequest(final InboundRequest delegate)
    {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    /** The request this one passes calls to. */
    protected final InboundRequest delegate()
    {
        return delegate;
    }

    @Override
    public Message message()
    {
        return delegate.message();
    }

    @Override
    public Session session()
    {
        return delegate.session();
    }

    @Override
    public long requestId()
    {
        return delegate.requestId();
    }

    @Override
    public boolean isOneWay()
    {
        return delegate.isOneWay();
    }

    @Override
    public Metadata metadata()
    {
        return delegate.metadata();
    }

    @Override
    public boolean hasDeadline()
    {
        return delegate.hasDeadline();
    }

    @Override
    public long deadline()
    {
        return delegate.deadline();
    }

    @Override
    public Duration timeRemaining()
    {
        return delegate.timeRemaining();
    }

    @Override
    public boolean isExpired()
    {
        return delegate.isExpired();
    }

    @Override
    public boolean refuseIfExpired()
    {
        return delegate.refuseIfExpired();
    }

    @Override
    public void respond(final Outbound response)
    {
        delegate.respond(response);
    }

    @Override
    public void fail(final String type, final String message)
    {
        delegate.fail(type, message);
    }

    @Override
    public void refuse()
    {
        delegate.refuse();
    }

    @Override
    public boolean isCancelled()
    {
        return delegate.isCancelled();
    }

    @Override
    public void onCancel(final Runnable action)
    {
        delegate.onCancel(action);
    }
}
