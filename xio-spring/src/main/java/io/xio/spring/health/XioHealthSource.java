package io.xio.spring.health;

/**
 * Where the health service learns whether the application, or one of its services, is fit to take calls beyond
 * the server's own state (such as Spring Boot's readiness, or the actuator's health). The health service asks every
 * source and answers with the first that says {@link XioHealth.ServingStatus#NOT_SERVING}; a source only asked
 * about services the server exports, and about the whole server ({@value XioHealth#SERVER}). Called on the thread
 * of the health call (a worker's); may block briefly, as a health indicator does; must be thread-safe.
 */
@FunctionalInterface
public interface XioHealthSource
{
    /**
     * The health of {@code service}, or of the whole application for {@value XioHealth#SERVER}: serving, or not
     * serving with a short reason that a caller may be shown (so nothing secret).
     */
    XioHealth.HealthCheck check(String service);
}
