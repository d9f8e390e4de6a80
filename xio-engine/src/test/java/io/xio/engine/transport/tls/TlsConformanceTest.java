package io.xio.engine.transport.tls;

import io.xio.engine.TlsOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.conformance.TransportConformanceTest;

import java.io.IOException;
import java.net.ServerSocket;

/** The conformance suite over {@code tls} on loopback: every case, through TLS 1.3 with the test CA. */
class TlsConformanceTest extends TransportConformanceTest
{
    private static final TestCertificates CERTIFICATES = TestCertificates.create();
    private static final TlsOptions TLS = CERTIFICATES.serverOptions();

    @Override
    protected String portalAddress()
    {
        return "tls://127.0.0.1:0";
    }

    @Override
    protected XioEngine.Builder configure(final XioEngine.Builder builder)
    {
        return builder.tls(TLS);
    }

    /**
     * The JDK's SSLEngine (17) allocates about 1.7 KB per wrap or unwrap of a small record (results, cipher
     * buffers), four per round trip; measured 6.7 KB. The engine's own 16 bytes are inside this, and anything the
     * link itself allocated per record would show as more.
     */
    @Override
    protected double allocationBudget()
    {
        return 7 * 1024;
    }

    @Override
    protected String deadAddress()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return "tls://127.0.0.1:" + socket.getLocalPort() + "/kv"; // closed again: nothing listens there
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
