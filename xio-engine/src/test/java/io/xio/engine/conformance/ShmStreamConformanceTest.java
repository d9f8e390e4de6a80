package io.xio.engine.conformance;

import java.util.UUID;

/** The stream conformance suite over {@code shm}: rings in memory-mapped files, between engines of one JVM here. */
class ShmStreamConformanceTest extends StreamConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "shm://conf-" + UUID.randomUUID().toString().substring(0, 13);
    }

    @Override
    protected boolean creditGoesMidTurn()
    {
        return true;
    }
}
