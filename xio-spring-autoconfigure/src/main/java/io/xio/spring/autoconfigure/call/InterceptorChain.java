package io.xio.spring.autoconfigure.call;

import java.util.List;

/** Runs a call through its interceptors, the first outermost, and then the call itself. Stateless; any thread. */
public final class InterceptorChain
{
    private InterceptorChain()
    {
    }

    /** {@code call} through {@code interceptors}, then {@code last}. */
    public static Object server(final List<XioServerInterceptor> interceptors, final XioServerCall call,
        final XioCallChain last) throws Throwable
    {
        return interceptors.isEmpty() ? last.proceed() : server(interceptors, 0, call, last);
    }

    private static Object server(final List<XioServerInterceptor> interceptors, final int index,
        final XioServerCall call, final XioCallChain last) throws Throwable
    {
        if (index == interceptors.size())
        {
            return last.proceed();
        }
        return interceptors.get(index).intercept(call, () -> server(interceptors, index + 1, call, last));
    }

    /** {@code call} through {@code interceptors}, then {@code last}. */
    public static Object client(final List<XioClientInterceptor> interceptors, final XioClientCall call,
        final XioCallChain last) throws Throwable
    {
        return interceptors.isEmpty() ? last.proceed() : client(interceptors, 0, call, last);
    }

    private static Object client(final List<XioClientInterceptor> interceptors, final int index,
        final XioClientCall call, final XioCallChain last) throws Throwable
    {
        if (index == interceptors.size())
        {
            return last.proceed();
        }
        return interceptors.get(index).intercept(call, () -> client(interceptors, index + 1, call, last));
    }
}
