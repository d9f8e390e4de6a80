package io.xio.engine;

import java.util.List;

/**
 * Runs around the handler of a service's requests: reads their metadata and deadline, turns them away (answering
 * them itself, e.g. {@link InboundRequest#fail} for a missing token, and not calling {@code next}), or wraps the
 * request in a {@link io.xio.engine.support.ForwardingInboundRequest} to see or change the answer (add trailers, time
 * the call). Register for every service with {@link XioEngine.Builder#serverInterceptor}, or for one with
 * {@link #wrap}.
 *
 * <p>Called where the handler would be, on the context thread that received the request, so the same rules hold:
 * do not block; an interceptor that does not call {@code next} closes the message and answers the request.
 */
@FunctionalInterface
public interface ServerInterceptor
{
    /** Handles {@code request}, normally by calling {@code next.onRequest} with it (or a wrapper) once. */
    void intercept(InboundRequest request, RequestHandler next) throws Exception;

    /**
     * Handles a stream the peer opened, normally by calling {@code next.onStream} with it once; one that turns it away
     * closes its opening message and fails it. By default streams pass through untouched.
     */
    default void interceptStream(final InboundStream stream, final RequestHandler next) throws Exception
    {
        next.onStream(stream);
    }

    /** {@code handler} behind {@code interceptors}, the first one outermost: it sees each request first. */
    static RequestHandler wrap(final RequestHandler handler, final List<ServerInterceptor> interceptors)
    {
        RequestHandler wrapped = handler;
        for (int i = interceptors.size() - 1; i >= 0; i--)
        {
            final ServerInterceptor interceptor = interceptors.get(i);
            final RequestHandler next = wrapped;
            wrapped = new RequestHandler()
            {
                @Override
                public void onRequest(final InboundRequest request) throws Exception
                {
                    interceptor.intercept(request, next);
                }

                @Override
                public void onStream(final InboundStream stream) throws Exception
                {
                    interceptor.interceptStream(stream, next);
                }
            };
        }
        return wrapped;
    }
}
