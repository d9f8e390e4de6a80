package io.xio.spring.client;

import io.xio.engine.BackPressureException;
import io.xio.engine.RemoteException;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionException;

/**
 * What the caller of a client proxy gets when its call failed: the server's exception as the same type when it is
 * on the call's allow-list, else {@link XioRemoteException}; a call the server turned away for lack of room as
 * {@link BackPressureException}, with the server's answer as its cause, the same type a call refused on this side
 * for lack of room gets; anything else as it is. Immutable; any thread.
 */
final class CallFailures
{
    private final Class<?> api;
    private final String target;
    private final AllowedExceptions allowedExceptions;

    /** For the calls of {@code api} to {@code target} (an address, or {@code service <id>}). */
    CallFailures(final Class<?> api, final String target, final AllowedExceptions allowedExceptions)
    {
        this.api = api;
        this.target = target;
        this.allowedExceptions = allowedExceptions;
    }

    /** {@code failure} of a call to {@code method} as its caller gets it. */
    Throwable translate(final Throwable failure, final Method method)
    {
        if (failure instanceof BackPressureException refused && refused.getCause() instanceof RemoteException remote &&
            remote.isBackPressure())
        {
            return new BackPressureException(api.getSimpleName() + "." + method.getName() + " was turned away " +
                "unrun by " + target + ": the service is too busy; retry later or slow down", remote);
        }
        if (!(failure instanceof RemoteException remote) || remote.remoteType() == null)
        {
            return failure;
        }
        return allowedExceptions.rebuild(remote, method);
    }

    /** What a future's failure {@code ex} is: its cause when the future wrapped it. */
    static Throwable unwrap(final Throwable ex)
    {
        return ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
    }
}
