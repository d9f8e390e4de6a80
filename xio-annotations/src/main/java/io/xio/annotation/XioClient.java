package io.xio.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an interface (or a field or parameter of an interface type) as an xio client: calls on it become
 * transactions with the service its settings point at. Settings live in {@code xio.clients.<value>.*}, or
 * the address is given directly with {@link #uri()}. Interfaces annotated in the application's packages
 * become beans, so plain constructor injection works.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.FIELD, ElementType.PARAMETER})
public @interface XioClient
{
    /** Client name, whose settings live under {@code xio.clients.<name>}. */
    String value() default "";

    /** The service's address, e.g. {@code tcp://localhost:7000/kv}, instead of a named client's settings. */
    String uri() default "";
}
