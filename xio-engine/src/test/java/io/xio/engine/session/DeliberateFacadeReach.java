package io.xio.engine.session;

/** A part that reaches through the session facade, as the architecture rule forbids: the rule's own test. */
public final class DeliberateFacadeReach
{
    private DeliberateFacadeReach()
    {
    }

    static String reach(final SessionImpl session)
    {
        return session.describe();
    }
}
