package io.xio.engine.session.call;

import io.xio.engine.CallOptions;
import io.xio.engine.ClientInterceptor;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;

/**
 * The engine's {@link ClientInterceptor}s, run around each call its sessions send: before it is admitted, in order,
 * and on its outcome, last first. Immutable; any thread (the interceptors are the application's, thread-safe).
 */
public final class ClientInterceptorChain
{
    private static final Logger LOG = LoggerFactory.getLogger(ClientInterceptorChain.class);

    private final ClientInterceptor[] interceptors;

    public ClientInterceptorChain(final List<ClientInterceptor> interceptors)
    {
        this.interceptors = interceptors.toArray(new ClientInterceptor[0]);
    }

    /** Whether there are none: the send path then costs this one check. */
    boolean isEmpty()
    {
        return interceptors.length == 0;
    }

    /**
     * The interceptors' say on a call of {@code session} about to be admitted: its options, or why it may not go
     * (the interceptors that had run hear of it).
     */
    CallOptions beforeSend(final Session session, final Outbound message, final CallOptions options)
    {
        CallOptions result = options;
        for (int i = 0; i < interceptors.length; i++)
        {
            try
            {
                result = Objects.requireNonNull(interceptors[i].beforeSend(session, message, result),
                    "the options a client interceptor returned");
            }
            catch (final RuntimeException ex)
            {
                final XioException refused = ex instanceof XioException xio ? xio :
                    new XioException("call refused by client interceptor " + interceptors[i] + ": " + ex, ex);
                outcome(session, 0, null, refused, i);
                throw refused;
            }
        }
        return result;
    }

    /** The interceptors hear a call's outcome, last first, before its caller does. On the completing thread. */
    void outcome(final Session session, final long requestId, final Message response, final Throwable failure)
    {
        outcome(session, requestId, response, failure, interceptors.length);
    }

    /** {@link #outcome}, for the first {@code count} interceptors only: those whose beforeSend ran. */
    private void outcome(final Session session, final long requestId, final Message response,
        final Throwable failure, final int count)
    {
        for (int i = count - 1; i >= 0; i--)
        {
            try
            {
                interceptors[i].onOutcome(session, requestId, response, failure);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("client interceptor {} failed on the outcome of request {} of {}", interceptors[i],
                    requestId, session, ex);
            }
        }
    }
}
