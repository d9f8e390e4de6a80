package io.xio.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of an {@link XioService} class or of an {@link XioServiceAdvice} bean that turns an exception
 * thrown by a service method into the error its caller gets: an error code and a message. As with Spring MVC's
 * {@code @ExceptionHandler}, the handler for the nearest type of the exception thrown wins, the service's own
 * handlers before any advice's; a handler that throws declines, and what it throws is answered unmapped.
 *
 * <p>With the Spring starter, a handler takes no parameter or the exception, and returns an
 * {@code io.xio.spring.error.XioError}. It runs on the thread that answers the call.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface XioExceptionHandler
{
    /** The exception types handled; default: the type of the method's parameter. */
    Class<? extends Throwable>[] value() default {};
}
