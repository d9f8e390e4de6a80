package io.xio.spring.service;

import io.xio.engine.IdempotencyKeys;
import io.xio.engine.InboundRequest;
import io.xio.engine.Metadata;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import org.jspecify.annotations.Nullable;

import java.util.Collection;
import java.util.List;

/**
 * How a service runs its exactly-once methods ({@code @XioMethod(exactlyOnce = true)}): each call inside the
 * application's database transaction, its idempotency key and answer recorded with the method's writes, a key
 * already committed answered without running the method. The dispatcher hands such a call here in place of invoking
 * the method; {@code io.xio.spring.exactlyonce} implements it on the execution ledger ({@code xio-ledger}) and
 * Spring's transactions. Made per service at start-up, where a method it cannot serve fails naming itself;
 * thread-safe: calls run on the service's workers.
 */
public interface ExactlyOnceCalls
{
    /** The service method's own invocation, run at most once per call by {@link #invoke}. */
    @FunctionalInterface
    interface Invocation
    {
        @Nullable Object proceed() throws Throwable;
    }

    /**
     * Runs one call of the exactly-once {@code method} that {@code request} carries, or answers it with what an
     * earlier attempt of its key committed, on the thread that runs the call.
     *
     * @param recorder   told whether the answer was executed or replayed ({@link CallRecorder#exactlyOnce})
     * @param started    what {@code recorder}'s start returned for this call
     * @param invocation the method's invocation
     * @return the method's result, or the stored one decoded back into the result's type
     * @throws Throwable what the method threw when its transaction rolled back; an {@link AnsweredFailure} with the
     *     answer of an error that committed (now or by an earlier attempt) or of a call without a key; a
     *     {@link NotSettled} when this attempt did not settle the call (the call is refused, to be retried)
     */
    @Nullable Object invoke(ServiceMethod method, InboundRequest request, CallRecorder recorder,
        @Nullable Object started, Invocation invocation) throws Throwable;

    /**
     * The exactly-once calls of the service exported as {@code resource} from {@code factory}, or null when none of
     * its {@code methods} is exactly-once: at start-up, where a method that cannot run exactly once fails naming
     * itself (a service running inline, a method that answers with a future or a {@code Mono}, no factory: the
     * application has no execution ledger).
     *
     * @throws ExactlyOnceSetupException naming the first method that cannot run exactly once
     */
    static @Nullable ExactlyOnceCalls forService(final @Nullable Factory factory, final String resource,
        final Object target, final Collection<ServiceMethod> methods, final XioCodec codec,
        final XioExceptionHandlers handlers, final boolean inline)
    {
        final List<ServiceMethod> exactlyOnce = methods.stream().filter(ServiceMethod::exactlyOnce).toList();
        if (exactlyOnce.isEmpty())
        {
            return null;
        }
        final ServiceMethod first = exactlyOnce.get(0);
        if (inline)
        {
            throw new ExactlyOnceSetupException(resource, first.method(), "the service runs inline on the engine's " +
                "context thread (@XioService(dispatch = INLINE)), and an exactly-once method blocks on its database",
                "Export the service with dispatch = WORKER, or move the method to a service that does.");
        }
        for (final ServiceMethod method : exactlyOnce)
        {
            if (method.returnKind() == ServiceMethod.ReturnKind.FUTURE ||
                method.returnKind() == ServiceMethod.ReturnKind.MONO)
            {
                final String answers = method.suspending() ? "it suspends"
                    : "it returns " + method.method().getReturnType().getSimpleName();
                throw new ExactlyOnceSetupException(resource, method.method(), answers + ", and its transaction " +
                    "is bound to the thread that runs it", "Answer synchronously on the service (return the value " +
                    "itself); a client interface may still return a CompletableFuture or a Mono for it.");
            }
        }
        if (factory == null)
        {
            throw new ExactlyOnceSetupException(resource, first.method(), "the application has no execution " +
                "ledger", "Add io.xio:xio-ledger and spring-boot-starter-jdbc (a DataSource and its transaction " +
                "manager) to the application; without Spring Boot, give the exporter an ExactlyOnceCalls.Factory " +
                "(io.xio.spring.exactlyonce.TransactionalExactlyOnceCalls).");
        }
        return factory.forService(new ExportedService(resource, target, exactlyOnce, codec, handlers));
    }

    /**
     * Refuses, before it runs, a call to {@code method}, which is not exactly-once on this server, that its client
     * sent as a later attempt of an exactly-once call: its metadata says how many attempts went before
     * ({@link IdempotencyKeys#PREVIOUS_ATTEMPTS_KEY}; a retry, or an application's own key, which may have been sent
     * before). An earlier attempt may have run it, here or on another server, and without a ledger nothing tells, so
     * running it again could run it twice: the client and the server disagree on what the method is, which no retry
     * mends, so the answer is {@link XioErrorCode#FAILED_PRECONDITION}. The first attempt of a key its client made
     * (no such entry) runs as any call: it cannot meet an earlier run of its key, and it is the only attempt that
     * runs. Any thread.
     *
     * @throws AnsweredFailure with that answer
     */
    static void refuseIfMayHaveRun(final ServiceMethod method, final Metadata metadata)
    {
        if (!IdempotencyKeys.firstUse(metadata))
        {
            throw new AnsweredFailure(new XioExceptionHandlers.Answer(IllegalStateException.class.getName(),
                XioError.of(XioErrorCode.FAILED_PRECONDITION, method.wireName() + " is not exactly-once on this " +
                    "server, but this call was sent as one (metadata " + IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY +
                    ": " + metadata.get(IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY) + "): an earlier attempt may have " +
                    "run it, and the server keeps no ledger to tell, so it did not run it again; mark the service's " +
                    "method @XioMethod(exactlyOnce = true) too, or not the client's")), null);
        }
    }

    /**
     * One exported service with exactly-once methods.
     *
     * @param resource the resource it is exported as
     * @param target the service bean (a proxy, as the context made it)
     * @param methods its exactly-once methods
     * @param codec the server's codec, which stores the answers
     * @param handlers how the service's failures are answered, which stores an error that commits
     */
    record ExportedService(String resource, Object target, List<ServiceMethod> methods, XioCodec codec,
        XioExceptionHandlers handlers)
    {
        public ExportedService
        {
            methods = List.copyOf(methods);
        }
    }

    /** Makes the {@link ExactlyOnceCalls} of each exported service that has exactly-once methods; a bean. */
    @FunctionalInterface
    interface Factory
    {
        /**
         * The exactly-once calls of {@code service}, at start-up.
         *
         * @throws ExactlyOnceSetupException when one of its methods cannot run exactly once (no transaction manager,
         *     a propagation that would not join the ledger's transaction), naming it
         */
        ExactlyOnceCalls forService(ExportedService service);
    }

    /**
     * A call answered with an answer decided before the dispatcher saw the failure: a stored error replayed as it
     * was first answered, or xio's own refusal of a call. Its cause, if any, is what the method threw in this
     * attempt. No stack trace: it is an answer, not a fault of this server.
     */
    final class AnsweredFailure extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        private final transient XioExceptionHandlers.Answer answer;

        public AnsweredFailure(final XioExceptionHandlers.Answer answer, final @Nullable Throwable cause)
        {
            super(answer.type() + ": " + answer.error().message(), cause, false, false);
            this.answer = answer;
        }

        public XioExceptionHandlers.Answer answer()
        {
            return answer;
        }
    }

    /**
     * This attempt did not settle its call: another attempt of its idempotency key still holds it in an open
     * transaction, a transient database failure rolled it back, or its commit failed. The same key's next attempt
     * settles it (runs it, or gets what committed), so the call is refused with back-pressure, the answer that says
     * "try again", which a client retries an exactly-once call on. No stack trace.
     */
    final class NotSettled extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public NotSettled(final String message, final Throwable cause)
        {
            super(message, cause, false, false);
        }
    }
}
