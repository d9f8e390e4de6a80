package io.xio.ledger;

import io.xio.engine.IdempotencyKeys;
import io.xio.engine.InboundRequest;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RequestHandler;
import io.xio.engine.XioException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A request handler for engine servers whose service keeps its effects in a database: runs each request exactly
 * once per idempotency key ({@link IdempotencyKeys}, in the request's metadata) through an
 * {@link ExactlyOnceExecution}, whichever server of the cluster its attempts reach, and answers with the answer it
 * executed or the one an earlier attempt committed. The application's {@link Handler} gets the request and the
 * transaction's connection and returns the response's header bytes, which are also the answer stored; an error whose
 * transaction commits (the execution's rollback rule) is stored and answered as the engine's error answer, so a
 * replay fails the same way. Register it in place of the handler:
 * {@code engine.register("transfers", ExactlyOnceRequests.builder(execution, executor, handler).build())}.
 *
 * <p>The work blocks on the database, so it runs on the {@link Executor} given, never on the engine's context
 * thread; a full executor turns the request away with back-pressure. A request without a key is refused with an
 * error unless {@link Builder#runWithoutKey} was set. A claim waits for another attempt that holds the key at most
 * the call's time left (and at most {@link Builder#maxClaimWait}); past that the request is turned away with
 * back-pressure, the engine's answer for "not run, try again later", and the same key's next attempt gets the
 * other's outcome. So is any attempt that did not settle its call ({@link ExecutionUnsettledException}: a deadlock
 * or another transient database failure, a commit whose outcome is unknown): never a final error for a call whose
 * retry may find it committed. Other failures are answered with an error that names only a reference, which the
 * server's log gives with the details (SQL and schema are not for remote peers); the application's own errors that
 * its transaction committed are answered as they were stored. Answers must fit the peer's header limit
 * ({@code Limits.maxHeaderBytes}, 64 KiB by default).
 *
 * <p>Thread-safe: {@link #onRequest} on context threads, the work on the executor's; the counts from any thread.
 */
public final class ExactlyOnceRequests implements RequestHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceRequests.class);

    /** The application's work on one request, run on the executor's thread within the call's transaction. */
    @FunctionalInterface
    public interface Handler
    {
        /**
         * Serves {@code request} (read its message here; it is closed afterwards) with its writes on
         * {@code connection} (neither commit nor roll back) and returns the response's header bytes. Not called when
         * an earlier attempt's answer is replayed.
         */
        byte[] handle(InboundRequest request, Connection connection) throws Exception;
    }

    private final ExactlyOnceExecution execution;
    private final Executor executor;
    private final Handler handler;
    private final boolean runWithoutKey;
    private final Duration maxClaimWait;
    private final AtomicLong executed = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();
    private final AtomicLong turnedAway = new AtomicLong();

    private ExactlyOnceRequests(final Builder builder)
    {
        this.execution = builder.execution;
        this.executor = builder.executor;
        this.handler = builder.handler;
        this.runWithoutKey = builder.runWithoutKey;
        this.maxClaimWait = builder.maxClaimWait;
    }

    /**
     * @param executor runs the work (which blocks on the database); a bounded one turns requests away when full
     */
    public static Builder builder(final ExactlyOnceExecution execution, final Executor executor,
        final Handler handler)
    {
        return new Builder(execution, executor, handler);
    }

    @Override
    public void onRequest(final InboundRequest request)
    {
        final Metadata metadata = request.metadata(); // decoded before the message is closed
        final String key;
        try
        {
            key = IdempotencyKeys.of(metadata);
        }
        catch (final IllegalArgumentException ex)
        {
            request.message().close();
            request.fail(ex);
            return;
        }
        if (key == null && !runWithoutKey)
        {
            request.message().close();
            request.fail(XioException.class.getName(), "this service runs each call exactly once and takes only " +
                "calls that carry an idempotency key (metadata " + IdempotencyKeys.METADATA_KEY + "): make it an " +
                "exactly-once call");
            return;
        }
        final boolean firstUse = IdempotencyKeys.firstUse(metadata);
        try
        {
            executor.execute(() -> run(request, key, firstUse));
        }
        catch (final RejectedExecutionException ex)
        {
            request.message().close();
            request.refuse();
        }
    }

    /** Requests whose work ran here and committed. */
    public long executed()
    {
        return executed.get();
    }

    /** Requests answered with the answer an earlier attempt of their key had committed, without running. */
    public long replayed()
    {
        return replayed.get();
    }

    /**
     * Requests turned away unsettled ({@link ExecutionUnsettledException}): another attempt of their key was still
     * running past their wait, or a transient database failure, or a commit whose outcome is unknown.
     */
    public long turnedAway()
    {
        return turnedAway.get();
    }

    /** On the executor's thread. */
    private void run(final InboundRequest request, final String key, final boolean firstUse)
    {
        final ExecutionOutcome outcome;
        try
        {
            if (request.isCancelled() || request.refuseIfExpired())
            {
                request.message().close(); // nobody waits for the answer; an attempt that does will run it
                return;
            }
            final LedgerWork work = connection -> handler.handle(request, connection);
            outcome = key == null ? execution.executeWithoutKey(work) :
                execution.execute(LedgerKeys.scoped(request.session().resource(), request.session().principal(),
                    key), firstUse, claimWait(request), work);
        }
        catch (final ExecutionUnsettledException ex)
        {
            turnedAway.incrementAndGet();
            request.message().close();
            LOG.debug("request {} of {} turned away unsettled", request.requestId(), request.session(), ex);
            request.refuse();
            return;
        }
        catch (final Throwable ex)
        {
            request.message().close();
            final String reference = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
            LOG.warn("request {} of {} failed, reference {}", request.requestId(), request.session(), reference, ex);
            if (!request.isOneWay())
            {
                request.fail(XioException.class.getName(), "the service failed to serve this call; reference " +
                    reference + " in the server's log");
            }
            return;
        }
        request.message().close();
        (outcome.replayed() ? replayed : executed).incrementAndGet();
        answer(request, outcome.answer());
    }

    private Duration claimWait(final InboundRequest request)
    {
        final Duration left = request.timeRemaining();
        return left == null || left.compareTo(maxClaimWait) > 0 ? maxClaimWait : left;
    }

    private static void answer(final InboundRequest request, final LedgerAnswer answer)
    {
        if (request.isOneWay())
        {
            return;
        }
        if (answer.isError())
        {
            request.fail(answer.errorType(), answer.errorMessage());
            return;
        }
        try
        {
            request.respond(Outbound.of(answer.bytes()));
        }
        catch (final XioException ex)
        {
            // Answered with an error that says only this to the peer; the sizes are for this side's log.
            LOG.warn("request {} of {}: the answer does not fit the peer's limits", request.requestId(),
                request.session(), ex);
        }
    }

    @Override
    public String toString()
    {
        return "exactly-once requests through " + execution;
    }

    /** Settings of an {@link ExactlyOnceRequests}. Not thread-safe. */
    public static final class Builder
    {
        private final ExactlyOnceExecution execution;
        private final Executor executor;
        private final Handler handler;
        private boolean runWithoutKey;
        private Duration maxClaimWait = Duration.ofSeconds(30);

        private Builder(final ExactlyOnceExecution execution, final Executor executor, final Handler handler)
        {
            this.execution = Objects.requireNonNull(execution, "execution");
            this.executor = Objects.requireNonNull(executor, "executor");
            this.handler = Objects.requireNonNull(handler, "handler");
        }

        /**
         * Whether a request without an idempotency key runs too (in a transaction, without the ledger: at least
         * once, as any call) instead of being refused with an error. False by default.
         */
        public Builder runWithoutKey(final boolean value)
        {
            this.runWithoutKey = value;
            return this;
        }

        /**
         * The longest a claim (or a first attempt's record) waits for another attempt that holds its key, whatever
         * time its call has left (and for peers that send no deadline): 30 s by default. On H2 the session's lock
         * timeout bounds the wait instead ({@link JdbcExecutionLedger}).
         */
        public Builder maxClaimWait(final Duration value)
        {
            if (value.isNegative() || value.isZero())
            {
                throw new IllegalArgumentException("a claim's wait is positive, not " + value);
            }
            this.maxClaimWait = value;
            return this;
        }

        public ExactlyOnceRequests build()
        {
            return new ExactlyOnceRequests(this);
        }
    }
}
