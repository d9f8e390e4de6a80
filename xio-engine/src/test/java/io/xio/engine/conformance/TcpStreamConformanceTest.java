package io.xio.engine.conformance;

/** The stream conformance suite over {@code tcp} on loopback. */
class TcpStreamConformanceTest extends StreamConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "tcp://127.0.0.1:0";
    }
}
