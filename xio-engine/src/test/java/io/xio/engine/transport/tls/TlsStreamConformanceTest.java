package io.xio.engine.transport.tls;

import io.xio.engine.TlsOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.conformance.StreamConformanceTest;

/** The stream conformance suite over {@code tls} on loopback, through TLS 1.3 with the test CA. */
class TlsStreamConformanceTest extends StreamConformanceTest
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
     * The JDK's SSLEngine allocates about 1.7 KB per wrap or unwrap of a record (see TlsConformanceTest); a stream's
     * messages share records, and measured 162 B per message. The engine's own 16 bytes are inside this, and anything
     * the link allocated per message would show as more.
     */
    @Override
    protected double allocationBudget()
    {
        return 256;
    }
}
