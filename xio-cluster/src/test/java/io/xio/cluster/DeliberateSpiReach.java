package io.xio.cluster;

import io.xio.engine.transport.TransportProvider;

/** A cluster class that uses the engine's transport SPI, as the architecture rule forbids: the rule's own test. */
final class DeliberateSpiReach
{
    private DeliberateSpiReach()
    {
    }

    static String reach(final TransportProvider provider)
    {
        return provider.scheme();
    }
}
