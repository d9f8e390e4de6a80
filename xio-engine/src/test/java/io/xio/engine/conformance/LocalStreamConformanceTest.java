package io.xio.engine.conformance;

import java.util.UUID;

/** The stream conformance suite over the in-JVM {@code local} transport. */
class LocalStreamConformanceTest extends StreamConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "local://portal-" + UUID.randomUUID();
    }
}
