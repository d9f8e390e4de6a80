package io.xio.spring.health;

import io.xio.engine.SessionAcceptor;
import io.xio.engine.SetupDecision;
import io.xio.engine.SetupRequest;

/**
 * A portal's acceptor that lets set-ups for the health resource in without asking the authenticating acceptor it
 * wraps, so that a probe without credentials (a Kubernetes exec probe, a load balancer) can ask; every other set-up
 * goes to that acceptor. A session is bound to the resource it was set up for, so such a session reaches the health
 * resource only, anonymously. The engine's bounds on sessions per host still apply. Called on a portal's context
 * thread, like every acceptor.
 */
public final class UnauthenticatedHealthAcceptor implements SessionAcceptor
{
    private final SessionAcceptor authenticating;

    /** Asks {@code authenticating} about every set-up but those for {@value XioHealth#RESOURCE}. */
    public UnauthenticatedHealthAcceptor(final SessionAcceptor authenticating)
    {
        this.authenticating = authenticating;
    }

    @Override
    public SetupDecision onSetup(final SetupRequest request)
    {
        return XioHealth.RESOURCE.equals(request.resource()) ? SetupDecision.accept()
            : authenticating.onSetup(request);
    }
}
