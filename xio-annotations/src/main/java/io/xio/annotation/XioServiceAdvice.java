package io.xio.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class whose {@link XioExceptionHandler} methods apply to several services, as Spring MVC's
 * {@code @ControllerAdvice} does for controllers: to every service, or to those named by {@link #services()} or
 * implementing one of {@link #assignableTypes()}. A service's own handlers come first, then the advices' in
 * their order (Spring's {@code @Order} or {@code Ordered}). Annotated classes in the application's packages
 * become beans.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface XioServiceAdvice
{
    /** Resource names of the services advised; with {@link #assignableTypes()} empty too, every service. */
    String[] services() default {};

    /** Services advised by type: their class or exported interface is one of these or a subtype. */
    Class<?>[] assignableTypes() default {};
}
