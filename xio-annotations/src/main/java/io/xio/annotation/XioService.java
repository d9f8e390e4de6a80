package io.xio.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Exports a class's interface as an xio service: every portal of the application serves it under the
 * resource {@link #value()}. The Spring starter finds annotated classes in the application's packages and
 * makes them beans (constructor injection works as for any component).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface XioService
{
    /** Resource name; default: the exported interface's simple name, decapitalized. */
    String value() default "";

    /** The interface to export; default: the class's only interface. */
    Class<?> type() default void.class;

    /** Where the methods run. */
    Dispatch dispatch() default Dispatch.WORKER;

    /** Where an exported method runs. */
    enum Dispatch
    {
        /** On the server's executor (Boot's application task executor by default): methods may block. */
        WORKER,
        /** On the context thread that received the request: only for code that never blocks. */
        INLINE
    }
}
