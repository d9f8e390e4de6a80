package io.xio.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an interface as an xio client: calls on it become transactions with the service its settings point at.
 * Settings live in {@code xio.clients.<value>.*} (relaxed names: {@code @XioClient("orderService")} reads
 * {@code xio.clients.order-service.*}), or the address is given directly with {@link #uri()}. Each annotated
 * interface in the application's packages (or imported with {@code @ImportXioClients}) becomes one bean, injected
 * by type like any other. Two clients of one API are two interfaces extending it, each with its own name.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface XioClient
{
    /** Client name, whose settings live under {@code xio.clients.<name>}. */
    String value() default "";

    /** The service's address, e.g. {@code tcp://localhost:7000/kv}, instead of a named client's settings. */
    String uri() default "";
}
