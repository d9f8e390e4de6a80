package io.xio.spring.exactlyonce;

import io.xio.engine.IdempotencyKeys;
import io.xio.engine.InboundRequest;
import io.xio.engine.Metadata;
import io.xio.ledger.ExactlyOnceExecution;
import io.xio.ledger.ExecutionOutcome;
import io.xio.ledger.ExecutionUnsettledException;
import io.xio.ledger.LedgerKeys;
import io.xio.ledger.LedgerWork;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import io.xio.spring.service.ExactlyOnceCalls;
import io.xio.spring.service.XioExceptionHandlers;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.UnexpectedRollbackException;

import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Map;

/**
 * The exactly-once methods of one service, each through the {@link ExactlyOnceExecution} made for it (its own
 * transaction settings and rollback rules): a call's idempotency key comes from its metadata, its claim waits at most
 * the call's time left (and at most the longest wait set), its answer is stored as {@link StoredAnswers} says (a call
 * whose answer would not decode back rolls back) and a replayed one decoded back into the result. Immutable; any
 * number of workers at once.
 */
final class LedgerCalls implements ExactlyOnceCalls
{
    private static final Duration SHORTEST_WAIT = Duration.ofMillis(1);

    private final Map<Method, ExactlyOnceExecution> executions;
    private final XioCodec codec;
    private final TransactionalExactlyOnceCalls.Settings settings;

    LedgerCalls(final Map<Method, ExactlyOnceExecution> executions, final XioCodec codec,
        final TransactionalExactlyOnceCalls.Settings settings)
    {
        this.executions = Map.copyOf(executions);
        this.codec = codec;
        this.settings = settings;
    }

    @Override
    public @Nullable Object invoke(final ServiceMethod method, final InboundRequest request,
        final CallRecorder recorder, final @Nullable Object started, final Invocation invocation) throws Throwable
    {
        final ExactlyOnceExecution execution = executions.get(method.method());
        final Metadata metadata = request.metadata();
        final String key;
        try
        {
            key = IdempotencyKeys.of(metadata);
        }
        catch (final IllegalArgumentException ex)
        {
            throw refused(ex.getMessage());
        }
        if (key == null && !settings.runWithoutKey())
        {
            throw refused(method.wireName() + " runs each call exactly once and takes only calls that carry an " +
                "idempotency key (metadata " + IdempotencyKeys.METADATA_KEY + "); an xio client sends one for an " +
                "@XioMethod(exactlyOnce = true) method");
        }
        final Object[] result = new Object[1];
        final LedgerWork work = connection ->
        {
            final Object value;
            try
            {
                value = proceed(invocation);
            }
            catch (final Exception | Error ex)
            {
                if (SpringTransactions.rollbackOnlyAfterFlush())
                {
                    throw new RollbackOnly(ex);
                }
                throw ex;
            }
            // Known now, not at a commit that fails after the ledger's writes and leaves the call looking unsettled.
            if (SpringTransactions.rollbackOnlyAfterFlush())
            {
                throw new RollbackOnly(new UnexpectedRollbackException(method.wireName() + " returned, but its " +
                    "transaction was marked rollback-only (a @Transactional it called failed): rolled back"));
            }
            result[0] = value;
            try
            {
                return StoredAnswers.replayable(method, codec, value);
            }
            catch (final IllegalStateException unreplayable)
            {
                throw new RollbackOnly(unreplayable); // whatever the rules say of the exception: nothing is stored
            }
        };
        final ExecutionOutcome outcome;
        try
        {
            outcome = key == null ? execution.executeWithoutKey(work)
                : execution.execute(LedgerKeys.scoped(request.session().resource() + "/" + method.wireName(),
                    request.session().principal(), key), IdempotencyKeys.firstUse(metadata), claimWait(request), work);
        }
        catch (final RollbackOnly rolledBack)
        {
            throw rolledBack.answer;
        }
        catch (final ExecutionUnsettledException ex)
        {
            // Another attempt holds the key, or a transient database failure or a failed commit left the call
            // unsettled: the same key's next attempt settles it.
            throw new NotSettled(ex.getMessage(), ex);
        }
        if (key != null)
        {
            recorder.exactlyOnce(started, outcome.replayed());
        }
        if (outcome.answer().isError())
        {
            throw new AnsweredFailure(StoredAnswers.error(outcome.answer()), outcome.thrown());
        }
        return outcome.replayed() ? StoredAnswers.value(method, codec, outcome.answer().bytes()) : result[0];
    }

    /** The method's own invocation, whose exception the execution's rollback rule judges as it was thrown. */
    private static @Nullable Object proceed(final Invocation invocation) throws Exception
    {
        try
        {
            return invocation.proceed();
        }
        catch (final Exception | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new UndeclaredThrowableException(ex);
        }
    }

    /** The call's time left, within the longest wait set; the dispatcher does not start a call already late. */
    private Duration claimWait(final InboundRequest request)
    {
        final Duration left = request.timeRemaining();
        if (left == null || left.compareTo(settings.maxClaimWait()) > 0)
        {
            return settings.maxClaimWait();
        }
        return left.compareTo(SHORTEST_WAIT) < 0 ? SHORTEST_WAIT : left;
    }

    /** A call this server will not run as sent: the caller's mistake, said in xio's own words. */
    private static AnsweredFailure refused(final String why)
    {
        return new AnsweredFailure(new XioExceptionHandlers.Answer(IllegalArgumentException.class.getName(),
            XioError.of(XioErrorCode.INVALID_ARGUMENT, why)), null);
    }

    @Override
    public String toString()
    {
        return "exactly-once calls of " + executions.keySet().stream().map(Method::getName).toList();
    }

    /**
     * The call's transaction rolls back whatever the rollback rules say: the method's transaction was marked
     * rollback-only, or its answer could not be stored. The call is answered with {@code answer} (the method's
     * error, or why it rolled back), never stored. Carries no stack trace.
     */
    static final class RollbackOnly extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        private final transient Throwable answer;

        RollbackOnly(final Throwable answer)
        {
            super("the transaction was marked rollback-only", answer, false, false);
            this.answer = answer;
        }
    }
}
