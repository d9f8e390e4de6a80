package io.xio.spring.health;

import io.xio.engine.SessionAcceptor;
import io.xio.engine.SetupDecision;
import io.xio.engine.SetupRequest;

import java.util.function.IntSupplier;

/**
 * A portal's acceptor that lets set-ups for the health resource in without asking the authenticating acceptor it
 * wraps, so that a probe without credentials (a Kubernetes exec probe, a load balancer) can ask; every other set-up
 * goes to that acceptor. A session is bound to the resource it was set up for, so such a session reaches the health
 * resource only, anonymously.
 * <p>
 * Anonymous sessions have no principal, so the engine's bounds per principal do not hold them: this bounds them as
 * a group. Beyond {@code maxAnonymous} open anonymous health sessions a health set-up is asked of the authenticating
 * acceptor (a probe with credentials still gets in) and, when that does not accept it, refused, so that a few hosts
 * cannot take the engine's session slots. Portals deciding set-ups at once on several contexts may each see the
 * same count, so the bound may be passed by as many sessions as there are contexts. Called on a portal's context
 * thread, like every acceptor.
 */
public final class UnauthenticatedHealthAcceptor implements SessionAcceptor
{
    private final SessionAcceptor authenticating;
    private final IntSupplier anonymousSessions;
    private final int maxAnonymous;

    /**
     * Asks {@code authenticating} about every set-up but those for {@value XioHealth#RESOURCE}, which it accepts
     * anonymously while {@code anonymousSessions} (the open anonymous health sessions) is under {@code maxAnonymous}.
     *
     * @throws IllegalArgumentException when {@code maxAnonymous} is negative
     */
    public UnauthenticatedHealthAcceptor(final SessionAcceptor authenticating, final IntSupplier anonymousSessions,
        final int maxAnonymous)
    {
        if (maxAnonymous < 0)
        {
            throw new IllegalArgumentException("the bound on anonymous health sessions cannot be negative: " +
                maxAnonymous);
        }
        this.authenticating = authenticating;
        this.anonymousSessions = anonymousSessions;
        this.maxAnonymous = maxAnonymous;
    }

    @Override
    public SetupDecision onSetup(final SetupRequest request)
    {
        if (!XioHealth.RESOURCE.equals(request.resource()))
        {
            return authenticating.onSetup(request);
        }
        if (anonymousSessions.getAsInt() < maxAnonymous)
        {
            return SetupDecision.accept();
        }
        final SetupDecision decision = authenticating.onSetup(request);
        return decision instanceof SetupDecision.Accept ? decision
            : SetupDecision.reject("too many health checks without credentials are open; try again later");
    }
}
