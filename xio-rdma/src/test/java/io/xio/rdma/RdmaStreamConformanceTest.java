package io.xio.rdma;

import io.xio.engine.conformance.StreamConformanceTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * The stream conformance suite over {@code rdma}: needs an RDMA device, so it is tagged and runs in the Soft-RoCE guest
 * ({@code integration-tests/rdma/run-tests.sh}) or on a host with an RDMA NIC, at the address in
 * {@code XIO_RDMA_ADDRESS}.
 */
@Tag("rdma")
@Timeout(value = 240, unit = TimeUnit.SECONDS) // emulated verbs
class RdmaStreamConformanceTest extends StreamConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "rdma://" + RdmaTestAddress.ip() + ":0";
    }

    @Override
    protected io.xio.engine.XioEngine.Builder configure(final io.xio.engine.XioEngine.Builder builder)
    {
        // Under emulation a context can go quiet for longer than the suite's 3 s keepalive timeout.
        return builder.keepalive(java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(30));
    }

    @Override
    protected java.time.Duration killInterval()
    {
        return java.time.Duration.ofSeconds(1); // an emulated rdma_cm connection takes a while to come back
    }

    @Override
    protected int allocationMessages()
    {
        return 10_000; // Soft-RoCE under QEMU emulation is slow
    }
}
