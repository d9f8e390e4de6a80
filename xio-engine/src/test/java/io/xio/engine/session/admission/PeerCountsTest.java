package io.xio.engine.session.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PeerCountsTest
{
    @Test
    void aHostIsOnePeerOverEveryNetworkScheme()
    {
        assertThat(PeerCounts.hostOf("tcp://10.0.0.1:4711")).isEqualTo("10.0.0.1");
        assertThat(PeerCounts.hostOf("tls://10.0.0.1:4712")).isEqualTo("10.0.0.1");
        assertThat(PeerCounts.hostOf("rdma://10.0.0.1:4713")).isEqualTo("10.0.0.1");
        assertThat(PeerCounts.hostOf("tcp://[::1]:4711")).isEqualTo("[::1]");
        assertThat(PeerCounts.hostOf("shm://alice@orders")).isEqualTo("shm://alice@orders");
    }

    @Test
    void oneHostsConnectionsOverTcpAndTlsShareItsLimit()
    {
        final PeerCounts counts = new PeerCounts();
        assertThat(counts.tryAcquire(PeerCounts.hostOf("tcp://10.0.0.1:1"), 2)).isTrue();
        assertThat(counts.tryAcquire(PeerCounts.hostOf("tls://10.0.0.1:2"), 2)).isTrue();
        assertThat(counts.tryAcquire(PeerCounts.hostOf("tls://10.0.0.1:3"), 2)).isFalse();
        counts.release(PeerCounts.hostOf("tcp://10.0.0.1:1"));
        assertThat(counts.of("10.0.0.1")).isEqualTo(1);
    }
}
