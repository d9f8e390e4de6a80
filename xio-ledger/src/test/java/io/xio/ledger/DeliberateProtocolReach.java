package io.xio.ledger;

import io.xio.engine.protocol.Status;

/** A ledger class that uses the engine's wire protocol, as the architecture rule forbids: the rule's own test. */
final class DeliberateProtocolReach
{
    private DeliberateProtocolReach()
    {
    }

    static String reach(final int status)
    {
        return Status.describe(status);
    }
}
