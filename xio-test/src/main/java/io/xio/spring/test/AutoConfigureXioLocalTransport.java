package io.xio.spring.test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Put on a {@code @SpringBootTest} class: every portal and every client of the test's application context runs
 * over the in-JVM {@code local} transport, so the test binds no port and two test contexts with the same
 * configuration do not collide. The configuration stays as it is: a portal at {@code tcp://0.0.0.0:7000} becomes a
 * local portal of this context standing in for port 7000, and a client of {@code tcp://localhost:7000/kv} (any host)
 * reaches it; {@code tls}, {@code tcp} and {@code shm} addresses are all served locally (TLS is not run: there is
 * no network to protect). A portal at port 0 gets a stand-in port that {@code local.xio.port} (see
 * {@link LocalXioPort}) reports. See {@link XioLocalTransport} for the details; applies to the context's
 * {@code XioEngine} bean made by the auto-configuration, not to one the application defines itself.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureXioLocalTransport
{
}
