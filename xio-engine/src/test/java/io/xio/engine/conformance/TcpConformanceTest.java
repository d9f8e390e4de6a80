package io.xio.engine.conformance;

import java.io.IOException;
import java.net.ServerSocket;

/** The conformance suite over {@code tcp} on loopback. */
class TcpConformanceTest extends TransportConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "tcp://127.0.0.1:0";
    }

    @Override
    protected String deadAddress()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return "tcp://127.0.0.1:" + socket.getLocalPort() + "/kv"; // closed again: nothing listens there
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
