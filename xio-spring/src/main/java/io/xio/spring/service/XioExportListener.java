package io.xio.spring.service;

import io.xio.engine.Portal;

import java.util.List;

/**
 * Hears the {@link XioServiceExporter}'s portals come and go, so that something can announce them (Spring Cloud's
 * service registry) and withdraw them before the server drains. Beans of this type are called on the thread that
 * starts or stops the application context, or that asks for a drain; they must not block for long.
 */
public interface XioExportListener
{
    /** The services are exported and {@code portals} bound, with their real ports. */
    default void exported(final List<Portal> portals)
    {
    }

    /**
     * The application stops the server, which drains next ({@link #draining()} follows): with Spring Boot, the
     * application's readiness refuses traffic from now on, and accepts it again when a restart
     * {@linkplain #exported(List) exports} the services anew. Called once per stop, not for a drain on demand.
     */
    default void stopping()
    {
    }

    /**
     * The server is about to drain (graceful shutdown or on demand): clients should stop finding it. Called once per
     * drain, before its sessions are sent GOAWAY.
     */
    default void draining()
    {
    }
}
