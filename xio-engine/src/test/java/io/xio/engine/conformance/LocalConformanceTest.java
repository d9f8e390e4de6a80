package io.xio.engine.conformance;

import java.util.UUID;

/** The conformance suite over the in-JVM {@code local} transport. */
class LocalConformanceTest extends TransportConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "local://portal-" + UUID.randomUUID();
    }

    @Override
    protected String deadAddress()
    {
        return "local://nobody-" + UUID.randomUUID() + "/kv";
    }
}
