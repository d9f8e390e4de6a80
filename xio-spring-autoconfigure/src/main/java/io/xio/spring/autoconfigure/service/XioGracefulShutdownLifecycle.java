package io.xio.spring.autoconfigure.service;

import io.xio.spring.service.XioServiceExporter;
import org.springframework.context.SmartLifecycle;

/**
 * Stops the {@link XioServiceExporter} in Spring Boot's graceful-shutdown phase
 * ({@code WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE}), as the web server's graceful shutdown does for
 * HTTP: readiness refuses traffic, the sessions drain and the portals close while the web server drains, before it
 * stops. The exporter itself starts earlier ({@link XioServiceExporter#PHASE}, before the web server), so the portals
 * are bound when the web server's start registers the instance with service discovery; one lifecycle bean cannot
 * start before the web server and stop before it too, hence two, the way Boot splits its web server's.
 * Called by Spring's lifecycle processor only.
 */
public final class XioGracefulShutdownLifecycle implements SmartLifecycle
{
    /** Spring Boot's graceful-shutdown phase. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private final XioServiceExporter exporter;
    private volatile boolean running;

    public XioGracefulShutdownLifecycle(final XioServiceExporter exporter)
    {
        this.exporter = exporter;
    }

    @Override
    public void start()
    {
        running = true;
    }

    @Override
    public void stop()
    {
        running = false;
        exporter.stop();
    }

    @Override
    public void stop(final Runnable callback)
    {
        running = false;
        exporter.stop(callback);
    }

    @Override
    public boolean isRunning()
    {
        return running;
    }

    @Override
    public int getPhase()
    {
        return PHASE;
    }
}
