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

    /** The method may run twice without harm, so a call may be retried on another server of the cluster. */
    boolean idempotent() default false;

    /** Name on the wire; default: derived from the method's name and parameter types, so overloads differ. */
    String name() default "";
}
