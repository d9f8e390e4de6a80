package io.xio.engine;

import io.xio.engine.session.LeakTracker;

/** An API class that names the session layer, as the architecture rule forbids: the rule's own test. */
final class DeliberateSessionReach
{
    private DeliberateSessionReach()
    {
    }

    static int unreleased(final LeakTracker leaks)
    {
        return leaks.unreleased().size();
    }
}
