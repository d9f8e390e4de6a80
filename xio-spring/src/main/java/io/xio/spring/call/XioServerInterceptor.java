package io.xio.spring.call;

import org.jspecify.annotations.Nullable;

/**
 * Runs around the service methods of exported {@code @XioService}s: reads the caller's metadata and deadline,
 * refuses a call by throwing (an {@code @XioExceptionHandler} maps the exception like any other; the method does
 * not run), adds trailers to the answer, or times and wraps the call. Declare it as a bean: every service uses
 * the interceptors it {@link #appliesTo}, in {@code @Order} (or {@link org.springframework.core.Ordered}) order,
 * the first outermost.
 *
 * <p>It runs on the thread that runs the method (a worker, or the context thread for an inline service), after
 * the call's arguments were decoded and just before the method; for a method returning a {@code CompletionStage}
 * the chain returns that stage when the synchronous part is done. Shared by all calls: it must be thread-safe.
 */
@FunctionalInterface
public interface XioServerInterceptor
{
    /** Handles {@code call}, normally by returning {@code chain.proceed()}. */
    @Nullable Object intercept(XioServerCall call, XioCallChain chain) throws Throwable;

    /** Whether this interceptor runs for the service exported as {@code service}; every one by default. */
    default boolean appliesTo(final String service)
    {
        return true;
    }
}
