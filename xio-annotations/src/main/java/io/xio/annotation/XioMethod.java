package io.xio.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Per-method settings of an xio service interface. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface XioMethod
{
    /** Deadline of one call, as a duration such as {@code 250ms} or {@code 2s}; default: the client's. */
    String timeout() default "";

    /** A void method sent as a one-way message: the caller does not wait for it to run. */
    boolean oneWay() default false;

    /** With {@link #oneWay()}: return once the server confirmed delivery. */
    boolean receipt() default false;

    /**
     * The method may run twice without harm (a read, a put of a whole value), so a call whose connection, session
     * or server went away, or whose answer was lost with its connection, is tried again: on a fresh session (or
     * another server of the cluster), within the call's deadline (its timeout is the whole budget, not one
     * attempt's), after a jittered exponential backoff, a bounded number of times
     * ({@code xio.client.retry.*}). A call the server answered (its exception, a refusal for lack of room, a
     * timeout) is not tried again. A method that is not idempotent is never run twice by xio: the engine only
     * resends a request whose server still remembers it, and that returns the first run's answer.
     */
    boolean idempotent() default false;

    /**
     * The method runs once per call, whatever servers the call's attempts reach, for a service that keeps its
     * effects in the application's transactional database (a transfer, an order, a write). Each call carries an
     * idempotency key that every attempt of it keeps; the server runs the method in a database transaction of the
     * application's transaction manager, records the key and the answer in that same transaction (an execution
     * ledger, module {@code xio-ledger}), and gives a later attempt with the same key the stored answer without
     * running the method. So a call whose server died is tried again elsewhere (on a connection or server loss,
     * within the call's deadline, like an idempotent call) and runs once: a crash before commit leaves neither the
     * method's writes nor the key, a commit leaves both. An application error whose transaction commits (the
     * method's {@code @Transactional} rollback rules say so) is stored and given again as the same error.
     *
     * <p>What it covers: the writes the method makes in that transaction, through the transaction's connection
     * ({@code JdbcTemplate}, JPA, {@code DataSourceUtils}). What it does not: any other side effect (a message
     * sent, a file written, a call to another service, a write to another database), which may happen more than
     * once, since a method may run and roll back before its call is answered elsewhere; make those idempotent, or
     * record them in the transaction and carry them out after commit (an outbox).
     *
     * <p>The method answers synchronously (the transaction is bound to the thread that runs it): not a future, a
     * {@code Mono} or a stream, not one-way, and not {@link #idempotent()} as well. It runs on the service's
     * worker, never inline. See docs/exactly-once.md.
     */
    boolean exactlyOnce() default false;

    /** Name on the wire; default: derived from the method's name and parameter types, so overloads differ. */
    String name() default "";
}
