package io.xio.spring.autoconfigure;

import org.springframework.context.annotation.Import;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers a client bean for {@code @XioClient} interfaces outside the application's packages, e.g. those of a
 * shared API jar, the way Spring Cloud OpenFeign's {@code @EnableFeignClients} does for Feign clients. Put it on a
 * {@code @Configuration} class (or the {@code @SpringBootApplication} class):
 * <pre>{@code
 * @SpringBootApplication
 * @ImportXioClients(basePackageClasses = OrdersApi.class)   // every @XioClient interface in OrdersApi's package
 * class ShopApplication { }
 * }</pre>
 * With no attribute it scans the package of the annotated class. Interfaces in the application's own packages need
 * no import: the auto-configuration registers them. An interface imported more than once, or one the application
 * declared a bean of itself, gets one bean. Lives here, not in {@code xio-annotations}, because it imports Spring
 * configuration.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Import(XioClientsImportRegistrar.class)
public @interface ImportXioClients
{
    /** Alias of {@link #basePackages()}. */
    String[] value() default {};

    /** Packages, with their sub-packages, to scan for {@code @XioClient} interfaces. */
    String[] basePackages() default {};

    /** Classes whose packages (with their sub-packages) to scan for {@code @XioClient} interfaces. */
    Class<?>[] basePackageClasses() default {};

    /** {@code @XioClient} interfaces to register one by one, with no scan. */
    Class<?>[] clients() default {};
}
