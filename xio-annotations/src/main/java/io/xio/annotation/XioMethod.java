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

    /** Name on the wire; default: derived from the method's name and parameter types, so overloads differ. */
    String name() default "";
}
