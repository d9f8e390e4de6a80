package io.xio.engine.conformance;

import java.util.UUID;

/** The conformance suite over {@code shm}: rings in memory-mapped files, between engines of one JVM here. */
class ShmConformanceTest extends TransportConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "shm://conf-" + UUID.randomUUID().toString().substring(0, 13);
    }

    @Override
    protected String deadAddress()
    {
        return "shm://nobody-" + UUID.randomUUID().toString().substring(0, 13) + "/kv";
    }
}
