package io.xio.sample;

import io.xio.engine.XioEngine;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an application gets from the starter alone: the engine's own transports and no RDMA stack. DiSNI and
 * the rdma plug-in come only with {@code io.xio:xio-rdma}, which this app does not depend on.
 */
class StarterClassPathTest
{
    @Test
    void theStarterBringsNoDisniAndNoRdmaTransport()
    {
        assertThatThrownBy(() -> Class.forName("com.ibm.disni.RdmaCm")).isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.xio.rdma.RdmaTransportProvider"))
            .isInstanceOf(ClassNotFoundException.class);
        assertThat(getClass().getClassLoader().getResource("META-INF/native/linux-x86_64/libdisni.so")).isNull();
    }

    @Test
    void anRdmaUriSaysWhichJarBringsIt()
    {
        try (XioEngine engine = XioEngine.builder().contexts(1).build())
        {
            assertThatThrownBy(() -> engine.connect("rdma://127.0.0.1:7000/blobs"))
                .hasMessageContaining("no transport for scheme 'rdma'")
                .hasMessageContaining("io.xio:xio-rdma");
            assertThat(engine.bind("tcp://127.0.0.1:0").uri().scheme()).isEqualTo("tcp");
        }
    }
}
