package io.xio.rdma;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** The IP address of the RDMA interface the rdma tests use: {@code XIO_RDMA_ADDRESS}, e.g. 10.77.0.1. */
public final class RdmaTestAddress
{
    private RdmaTestAddress()
    {
    }

    public static String ip()
    {
        final String ip = System.getenv("XIO_RDMA_ADDRESS");
        if (ip == null || ip.isBlank())
        {
            throw new IllegalStateException("set XIO_RDMA_ADDRESS to the IP address of an RDMA-capable interface");
        }
        return ip;
    }

    /** A port nothing listens on (rdma_cm port space mirrors TCP's closely enough for a refusal). */
    public static int unusedPort()
    {
        try (ServerSocket socket = new ServerSocket())
        {
            socket.bind(new InetSocketAddress(InetAddress.getByName(ip()), 0));
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
