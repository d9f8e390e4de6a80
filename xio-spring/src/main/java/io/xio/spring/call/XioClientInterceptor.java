package io.xio.spring.call;

import org.jspecify.annotations.Nullable;

/**
 * Runs around the calls of {@code @XioClient} proxies: adds metadata (an auth token, a tenant, a correlation id),
 * shortens the timeout, refuses a call by throwing (its caller gets that exception and nothing is sent), or times
 * and wraps it. Declare it as a bean: every client uses the interceptors it {@link #appliesTo}, in {@code @Order}
 * (or {@link org.springframework.core.Ordered}) order, the first outermost.
 *
 * <p>It runs on the caller's thread, before the call is sent; for a method returning a {@code CompletableFuture}
 * the chain returns that future at once (the call's outcome completes it later). Shared by all calls: it must be
 * thread-safe.
 */
@FunctionalInterface
public interface XioClientInterceptor
{
    /** Handles {@code call}, normally by returning {@code chain.proceed()}. */
    @Nullable Object intercept(XioClientCall call, XioCallChain chain) throws Throwable;

    /**
     * Whether this interceptor runs for the client named {@code client} (its {@code @XioClient} name, or its
     * address when it has none) calling the service {@code service}; every one by default.
     */
    default boolean appliesTo(final String client, final String service)
    {
        return true;
    }
}
