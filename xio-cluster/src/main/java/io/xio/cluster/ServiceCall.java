package io.xio.cluster;

import io.xio.engine.BackPressureException;
import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
import io.xio.engine.Session;
import io.xio.engine.SessionDrainingException;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.support.Backoff;
import org.agrona.concurrent.NanoClock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One call over attempts: another endpoint after a refusal before sending, or after a loss if idempotent or
 * exactly-once (every attempt of which carries the key of its first, {@link IdempotencyKeys#forRetry}). An attempt
 * that failed unwritten is not one: a drained session's refusal goes elsewhere at once, and an idempotent or
 * exactly-once call's attempt that a session without a connection refused (one reconnecting to a killed server,
 * picked before its loss was published) is tried again after a backoff of its own, within the deadline. Only the
 * first attempt, on the caller's thread with a session ready, may wait for room in a session's window; the others
 * run on the client's thread, which must not block, and try again shortly when the window is full. A connection
 * failure that ends the call is its own instance and says whether any attempt was written
 * ({@link ConnectionException#mayHaveRun()}), and a timeout says whether any may have run
 * ({@link XioTimeoutException#mayHaveRun()}). A service client's {@code request} and {@code send} make one per call;
 * it runs on whichever thread completes its current attempt.
 */
final class ServiceCall<T>
{
    /** How often a call refused for lack of room in a window it may wait for is tried again. */
    private static final long FULL_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** What a call needs of its service client. Any thread. */
    interface Client
    {
        String service();

        /** The clock the call's deadline runs on. */
        NanoClock clock();

        /** How long a call without a deadline of its own may take. */
        long defaultTimeoutNanos();

        /** Attempts of one idempotent or exactly-once call, the first included (one refused unwritten is none). */
        int maxAttempts();

        /** The waits between attempts of an idempotent or exactly-once call. */
        Backoff backoff();

        /** The session for {@code key}, now or once there is one. */
        CompletableFuture<Session> session(long key);

        /** Whether more than one endpoint can take calls now: else an idempotent call waits for its session. */
        boolean hasAlternatives();

        /** Tries {@code call} again after {@code delayNanos}, on the client's thread. */
        void retryLater(ServiceCall<?> call, long delayNanos);

        /** The endpoints and their states, for a call that found none. */
        String describe();
    }

    final CompletableFuture<T> result = new CompletableFuture<>();
    private final Client client;
    private final NanoClock clock;
    final Outbound first;
    final CallOptions options;
    final long key;
    final boolean oneWay;
    final long begun;
    final long budget;
    final AtomicReference<CompletableFuture<?>> current = new AtomicReference<>();
    int attempts;
    boolean firstUsed;
    /** Whether an attempt was written to a connection (so its server may have run it). */
    boolean written;
    /** Attempts of an idempotent or exactly-once call that a session refused unwritten: their backoff's step. */
    int unwritten;

    ServiceCall(final Client client, final Outbound message, final CallOptions options, final long key,
        final boolean oneWay)
    {
        this.client = client;
        this.clock = client.clock();
        this.begun = clock.nanoTime();
        this.first = message;
        this.options = options;
        this.key = key;
        this.oneWay = oneWay;
        this.budget = options.timeout() != null ? options.timeout().toNanos() : client.defaultTimeoutNanos();
        result.whenComplete((value, ex) ->
        {
            final CompletableFuture<?> inFlight = current.get();
            if (result.isCancelled() && inFlight != null)
            {
                inFlight.cancel(true); // cancels the call on the server too
            }
        });
    }

    long left()
    {
        return budget - (clock.nanoTime() - begun);
    }

    void attempt(final boolean callerThread)
    {
        if (result.isDone())
        {
            return;
        }
        final long left = left();
        if (left <= 0)
        {
            result.completeExceptionally(new XioTimeoutException("the call's " +
                TimeUnit.NANOSECONDS.toMillis(budget) + " ms passed before an endpoint of " + client.service() +
                " could take it" + (written ? " again (an earlier attempt was written: it may have run)" : ""), null,
                written));
            return;
        }
        final CompletableFuture<Session> session = client.session(key);
        current.set(session);
        if (session.isDone() && !session.isCompletedExceptionally())
        {
            send(session.join(), callerThread);
            return;
        }
        // CompletableFuture's own timer, in real time whatever the client's clock: only a test's clock differs.
        session.orTimeout(left, TimeUnit.NANOSECONDS).whenComplete((chosen, failure) ->
        {
            if (failure != null)
            {
                final Throwable cause = unwrap(failure);
                fail(cause instanceof java.util.concurrent.TimeoutException ?
                    new ConnectionException("no endpoint of service " + client.service() + " could take the call " +
                        "within its deadline: " + client.describe()) : cause);
                return;
            }
            send(chosen, false); // on the client's thread, which woke the waiter
        });
    }

    void again(final long delayNanos)
    {
        client.retryLater(this, Math.min(delayNanos, Math.max(0, left())));
    }

    @SuppressWarnings("unchecked")
    private void send(final Session chosen, final boolean callerThread)
    {
        if (result.isDone())
        {
            return;
        }
        attempts++;
        // An exactly-once call may run again by its key: with other endpoints, its attempts fail at once like an
        // idempotent call's when their session has no connection up, so that they go to another; with nowhere else
        // to go, both wait for their session's re-attach like any other.
        final CallOptions remaining = options.withTimeout(Duration.ofNanos(Math.max(1, left())))
            .withWaitWhenFull(options.waitWhenFull() && callerThread)
            .withIdempotent((options.idempotent() || options.exactlyOnce()) && client.hasAlternatives());
        final XioFuture<?> sent;
        try
        {
            final Outbound message = firstUsed ? copyOf(first) : keyed(first);
            firstUsed = true;
            sent = oneWay ? chosen.send(message, remaining) : chosen.request(message, remaining);
        }
        catch (final RuntimeException ex)
        {
            fail(ex);
            return;
        }
        current.set(sent);
        if (result.isCancelled())
        {
            sent.cancel(true);
        }
        sent.whenComplete((value, failure) ->
        {
            if (failure == null)
            {
                if (!result.complete((T)value) && value instanceof Message response)
                {
                    response.close(); // cancelled meanwhile: nobody else releases it
                }
                return;
            }
            final Throwable cause = unwrap(failure);
            final boolean unwrittenLoss = cause instanceof ConnectionException lost && !lost.mayHaveRun();
            if (!unwrittenLoss && !unsentBackPressure(cause) && !(cause instanceof XioTimeoutException late &&
                !late.mayHaveRun()))
            {
                written = true;
            }
            final boolean retried = options.idempotent() || options.exactlyOnce();
            if (cause instanceof SessionDrainingException)
            {
                attempts--; // never sent: not an attempt
                again(0);
            }
            else if (unsentBackPressure(cause) && options.waitWhenFull() && !callerThread)
            {
                attempts--; // refused here, unsent, where the caller would have waited: wait by trying again
                again(FULL_RETRY_NANOS);
            }
            else if (retried && unwrittenLoss || options.exactlyOnce() && turnedAwayUnrun(cause))
            {
                againUnwritten(cause);
            }
            else if (retried && attempts < client.maxAttempts() && CallOptions.mayRetryIdempotent(cause))
            {
                again(client.backoff().delayNanos(attempts - 1));
            }
            else
            {
                fail(cause);
            }
        });
    }

    /**
     * An idempotent or exactly-once attempt failed with {@code loss} before it was written (or an exactly-once one
     * was turned away unrun): not an attempt, so it does not use up the call's, but tried again after a backoff of
     * its own so that it does not spin; or, when that would end past the deadline, the call fails with it.
     */
    private void againUnwritten(final Throwable loss)
    {
        final long delay = client.backoff().delayNanos(unwritten++);
        if (delay >= left())
        {
            fail(loss);
            return;
        }
        attempts--;
        again(delay);
    }

    /**
     * Ends the call with {@code cause}; a connection failure as this call's own instance (of its type, with its
     * cause) saying whether any attempt was written, not only the last; a timeout saying it may have run when an
     * earlier attempt may have, though the last did not. Any thread.
     */
    void fail(final Throwable cause)
    {
        final Throwable own;
        if (cause instanceof ConnectionException lost)
        {
            own = lost.forCall(written);
        }
        else if (cause instanceof XioTimeoutException late)
        {
            own = late.forCall(written);
        }
        else
        {
            own = cause;
        }
        result.completeExceptionally(own);
    }

    /**
     * The server turned the attempt away unrun (a back-pressure answer): for an exactly-once call also what a server
     * keeping an execution ledger answers while another attempt of its key has not settled, so it is tried again
     * with its key, as often as the deadline allows, until the first attempt's outcome is there to be replayed.
     */
    private static boolean turnedAwayUnrun(final Throwable cause)
    {
        return cause instanceof BackPressureException && cause.getCause() instanceof RemoteException remote &&
            remote.isBackPressure();
    }

    /** A refusal for lack of room in this side's window: the attempt was not written. */
    private static boolean unsentBackPressure(final Throwable cause)
    {
        return cause instanceof BackPressureException && !(cause.getCause() instanceof RemoteException);
    }

    /** The first attempt's message: an exactly-once call's carries its key ({@link IdempotencyKeys}). */
    private Outbound keyed(final Outbound message)
    {
        return options.exactlyOnce() ? message.metadata(IdempotencyKeys.forFirstAttempt(message.metadata())) :
            message;
    }

    /**
     * The same header and segments as a new message (xio is done with them once an attempt failed), and the same
     * metadata: an exactly-once call's key, as this call's, saying how many attempts went before.
     */
    private Outbound copyOf(final Outbound sent)
    {
        final Outbound copy = sent.sameData();
        final Metadata metadata = sent.metadata();
        if (metadata == null)
        {
            return copy;
        }
        return copy.metadata(options.exactlyOnce() ? IdempotencyKeys.forRetry(metadata, attempts - 1) :
            new Metadata(metadata));
    }

    /** The failure a future completed with, out of the {@link CompletionException} a dependent stage wraps it in. */
    static Throwable unwrap(final Throwable ex)
    {
        return ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
    }
}
