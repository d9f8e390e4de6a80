package io.xio.spring.call;

import org.jspecify.annotations.Nullable;

import java.util.List;

/** Runs a call through its interceptors, the first outermost, and then the call itself. Stateless; any thread. */
public final class InterceptorChain
{
    private InterceptorChain()
    {
    }

    /** {@code call} through {@code interceptors}, then {@code last}. */
    public static @Nullable Object server(final List<XioServerInterceptor> interceptors, final XioServerCall call,
        final XioCallChain last) throws Throwable
    {
        return run(interceptors, 0, call, last, XioServerInterceptor::intercept);
    }

    /** {@code call} through {@code interceptors}, then {@code last}. */
    public static @Nullable Object client(final List<XioClientInterceptor> interceptors, final XioClientCall call,
        final XioCallChain last) throws Throwable
    {
        return run(interceptors, 0, call, last, XioClientInterceptor::intercept);
    }

    /** How one kind of interceptor is handed its call and the rest of the chain. */
    @FunctionalInterface
    private interface Step<I, C>
    {
        @Nullable Object intercept(I interceptor, C call, XioCallChain next) throws Throwable;
    }

    private static <I, C> @Nullable Object run(final List<I> interceptors, final int index, final C call,
        final XioCallChain last, final Step<I, C> step) throws Throwable
    {
        if (index == interceptors.size())
        {
            return last.proceed();
        }
        return step.intercept(interceptors.get(index), call, () -> run(interceptors, index + 1, call, last, step));
    }
}
