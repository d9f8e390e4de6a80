package io.xio.spring.autoconfigure.diagnostics;

import io.xio.spring.service.XioPortalBindException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a portal that could not be bound, as Spring Boot explains a web server port in use: which property
 * configured it, its URI, and what to do about it.
 */
class XioPortalBindFailureAnalyzer extends AbstractFailureAnalyzer<XioPortalBindException>
{
    @Override
    protected FailureAnalysis analyze(final Throwable rootFailure, final XioPortalBindException cause)
    {
        if (cause.isAddressInUse())
        {
            // shm and local portals are found by name, not port: the advice names what to change.
            final boolean named = cause.uri().regionMatches(true, 0, "shm:", 0, 4) ||
                cause.uri().regionMatches(true, 0, "local:", 0, 6);
            return new FailureAnalysis("The xio portal " + cause.property() + "=" + cause.uri() + " could not be " +
                "bound: its address is already in use.", "Identify and stop the process (or portal) that is " +
                "listening on that address, or give " + cause.property() + (named ? " another name." :
                " another port (port 0 takes a free one)."), cause);
        }
        return new FailureAnalysis("The xio portal " + cause.property() + "=" + cause.uri() + " could not be bound: " +
            cause.getCause().getMessage(), "Check " + cause.property() + ": the address must be one this host " +
            "can listen on.", cause);
    }
}
