package io.xio.rdma;

import io.xio.engine.conformance.TransportConformanceTest;
import org.junit.jupiter.api.Tag;

/**
 * The conformance suite over {@code rdma}: needs an RDMA device, so it is tagged and runs in the
 * Soft-RoCE guest ({@code integration-tests/rdma/run-tests.sh}) or on a host with an RDMA NIC, at the
 * address in {@code XIO_RDMA_ADDRESS}.
 */
@Tag("rdma")
class RdmaConformanceTest extends TransportConformanceTest
{
    @Override
    protected String portalAddress()
    {
        return "rdma://" + RdmaTestAddress.ip() + ":0";
    }

    @Override
    protected java.time.Duration largeMessageTimeout()
    {
        return java.time.Duration.ofSeconds(120); // 64 MiB under QEMU emulation took 24-38 s in CI's guest
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
