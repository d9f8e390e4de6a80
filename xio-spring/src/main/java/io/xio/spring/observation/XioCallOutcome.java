package io.xio.spring.observation;

import io.xio.engine.BackPressureException;
import io.xio.engine.ConnectionException;
import io.xio.engine.RemoteException;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.client.ExactlyOnceUnsettledException;
import io.xio.spring.client.XioRemoteException;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;

/** How a call ended, as the {@code outcome} tag of {@code xio.client.requests} and {@code xio.server.requests}. */
public enum XioCallOutcome
{
    /** Answered normally. */
    SUCCESS,
    /** The service threw: the caller got its exception. */
    SERVICE_ERROR,
    /** The deadline passed first. */
    TIMEOUT,
    /** The caller cancelled it. */
    CANCELLED,
    /** Refused for lack of room (too many in flight, the service's bounds full) or because the service stops. */
    BACK_PRESSURE,
    /** No connection could carry it. */
    CONNECTION_ERROR,
    /** Anything else, such as an argument that could not be encoded. */
    ERROR;

    private final String tag = name();

    /**
     * The outcome of a call that failed with {@code failure} as the engine reported it (before a client proxy
     * turns a remote exception into the service's own type), or {@link #SUCCESS} for null. An exactly-once call that
     * ended unsettled ({@link ExactlyOnceUnsettledException}) ended as its last attempt did.
     */
    public static XioCallOutcome of(final @Nullable Throwable failure)
    {
        if (failure == null)
        {
            return SUCCESS;
        }
        if (failure instanceof ExactlyOnceUnsettledException unsettled && unsettled.getCause() != null)
        {
            return of(unsettled.getCause()); // how its last attempt ended: a timeout stays one
        }
        if (failure instanceof XioTimeoutException)
        {
            return TIMEOUT;
        }
        if (failure instanceof RequestCancelledException || failure instanceof CancellationException)
        {
            return CANCELLED;
        }
        if (failure instanceof BackPressureException || failure instanceof RejectedExecutionException)
        {
            return BACK_PRESSURE;
        }
        if (failure instanceof ConnectionException)
        {
            return CONNECTION_ERROR;
        }
        if (failure instanceof RemoteException remote && (remote.isBackPressure() ||
            RejectedExecutionException.class.getName().equals(remote.remoteType())))
        {
            return BACK_PRESSURE; // the server turned the call away: too busy, or shutting down
        }
        if (failure instanceof RemoteException || failure instanceof XioRemoteException)
        {
            return SERVICE_ERROR;
        }
        return ERROR;
    }

    /** The tag value. */
    public String tag()
    {
        return tag;
    }
}
