package io.xio.engine;

/**
 * Decides how a portal answers a session set-up request: accept (with attributes), reject (with a reason
 * the client sees), or redirect to other portals. Called on the portal's context thread: do not block.
 */
@FunctionalInterface
public interface SessionAcceptor
{
    SetupDecision onSetup(SetupRequest request);

    /** Accepts every session; the portal still rejects one whose resource has no registered handler. */
    SessionAcceptor DEFAULT = request -> SetupDecision.accept();
}
