package io.xio.engine.session.admission;

import io.xio.engine.session.call.Lane;

/**
 * An admission part that reaches up into the lanes, as the architecture rules forbid (admission is the session layer's
 * leaf, and the call package depends on it, so this is a cycle too): the rules' own test.
 */
public final class DeliberateUpwardReach
{
    private DeliberateUpwardReach()
    {
    }

    static boolean reach(final Lane lane)
    {
        return lane.isUp();
    }
}
