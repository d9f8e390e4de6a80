package io.xio.rdma;

import io.xio.engine.conformance.TransportConformanceTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * The conformance suite over {@code rdma}: needs an RDMA device, so it is tagged and runs in the
 * Soft-RoCE guest ({@code integration-tests/rdma/run-tests.sh}) or on a host with an RDMA NIC, at the
 * address in {@code XIO_RDMA_ADDRESS}.
 */
@Tag("rdma")
@Timeout(value = 240, unit = TimeUnit.SECONDS) // emulated verbs: see largeMessageTimeout
class RdmaConformanceTest extends TransportConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "rdma://" + RdmaTestAddress.ip() + ":0";
    }

    @Override
    protected io.xio.engine.XioEngine.Builder configure(final io.xio.engine.XioEngine.Builder builder)
    {
        // Under emulation a context moving 64 MiB can go quiet for longer than the suite's 3 s keepalive timeout,
        // which then drops the connection and loses the (unretained) large response.
        return builder.keepalive(java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(30));
    }

    @Override
    protected java.time.Duration largeMessageTimeout()
    {
        // 64 MiB under QEMU emulation: 27 s alone, past 60 s after the rest of the suite in the same guest JVM
        return java.time.Duration.ofSeconds(180);
    }

    @Override
    protected int allocationRoundTrips()
    {
        return 500; // Soft-RoCE under QEMU emulation: a round trip costs about a millisecond
    }

    @Override
    protected String deadAddress()
    {
        return "rdma://" + RdmaTestAddress.ip() + ":" + RdmaTestAddress.unusedPort() + "/kv";
    }
}
