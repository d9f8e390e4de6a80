package io.xio.spring.call;

import org.jspecify.annotations.Nullable;

/** The rest of a call's interceptors and then the call itself: what an interceptor proceeds with. */
@FunctionalInterface
public interface XioCallChain
{
    /**
     * Runs the next interceptor, or the call itself after the last one: the service method on the server (its
     * result, or its exception as thrown), the remote call on the client (its result: a {@code CompletableFuture}
     * for a method that returns one).
     */
    @Nullable Object proceed() throws Throwable;
}
