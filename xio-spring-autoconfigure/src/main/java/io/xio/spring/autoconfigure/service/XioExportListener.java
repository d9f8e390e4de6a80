package io.xio.spring.autoconfigure.service;

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
     * The server is about to drain (graceful shutdown or on demand): clients should stop finding it. Called once per
     * drain, before its sessions are sent GOAWAY.
     */
    default void draining()
    {
    }
}
