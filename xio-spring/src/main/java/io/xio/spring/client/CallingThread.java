package io.xio.spring.client;

import io.xio.engine.XioEngine;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.call.XioServerCall;
import io.xio.spring.method.ServiceMethod;

import java.lang.reflect.Method;
import java.time.Duration;

/**
 * What the thread that makes a client call imposes on it: the call may not outlive the call that thread serves, and
 * it may not block an engine context thread, whose event loop would stall. Immutable; any thread.
 */
final class CallingThread
{
    private final Class<?> api;
    private final XioEngine engine;

    CallingThread(final Class<?> api, final XioEngine engine)
    {
        this.api = api;
        this.engine = engine;
    }

    /**
     * The call's timeout: its method's or client's, shortened to what is left of the call this thread serves; a
     * timeout when nothing is.
     */
    Duration timeout(final ClientMethodState state, final Method method)
    {
        final Duration limit = state.timeout;
        final XioServerCall serving = XioServerCall.current();
        final Duration left = serving == null ? null : serving.timeRemaining();
        if (left == null)
        {
            return limit;
        }
        if (left.isZero())
        {
            throw new XioTimeoutException("call " + api.getSimpleName() + "." + method.getName() + " not sent: " +
                "the deadline of the call being served (" + serving + ") has passed", null, false);
        }
        return left.compareTo(limit) < 0 ? left : limit;
    }

    /**
     * Whether this thread, whose waiter is {@code waiter}, is one of the engine's context threads; refuses a call of
     * {@code call} there unless it does not wait ({@code waits} false: it returns a future, or is a one-way message
     * without receipt).
     */
    boolean onContextThread(final CallerWaiter waiter, final ServiceMethod call, final boolean waits)
    {
        final boolean onContext = waiter.onContextThread(engine);
        if (waits && onContext)
        {
            throw new IllegalStateException("blocking call " + api.getSimpleName() + "." + call.method().getName() +
                " on an xio context thread would stall its event loop; return CompletableFuture instead");
        }
        return onContext;
    }
}
