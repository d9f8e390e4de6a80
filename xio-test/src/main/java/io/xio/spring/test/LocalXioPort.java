package io.xio.spring.test;

import org.springframework.beans.factory.annotation.Value;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Injects {@code local.xio.port}, the port of the context's first portal that has one, as {@code @LocalServerPort}
 * does for the web server: a portal configured with port 0 reports the port it got. Resolvable once the context is
 * started (a test's fields and parameters), not in the context's own client beans. Under
 * {@link AutoConfigureXioLocalTransport}, the stand-in port of the local portal.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Value("${local.xio.port}")
public @interface LocalXioPort
{
}
