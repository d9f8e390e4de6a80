package io.xio.zookeeper;

import io.xio.cluster.Endpoint;
import io.xio.engine.XioUri;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The node format: what is written reads back the same; what is not of the format is refused, never half read. */
class EndpointCodecTest
{
    @Test
    void anEndpointReadsBackAsItWasWritten()
    {
        final Endpoint endpoint = new Endpoint("a", "box/boot-1", List.of(XioUri.parse("tcp://10.0.0.5:7000"),
            XioUri.parse("shm://orders"), XioUri.parse("rdma://[fe80::1]:7001")), Map.of("zone", "a", "v", "1=2"));
        assertThat(EndpointCodec.decode("a", EndpointCodec.encode(endpoint))).isEqualTo(endpoint);
    }

    @Test
    void unknownKeysAndBlankLinesOfTheVersionAreIgnored()
    {
        final Endpoint endpoint = EndpointCodec.decode("a",
            "v1\nweight=3\n\nportal=tcp://h:1\nmeta.=x\n".getBytes(StandardCharsets.UTF_8));
        assertThat(endpoint).isEqualTo(new Endpoint("a", "", List.of(XioUri.parse("tcp://h:1")), Map.of()));
    }

    @Test
    void dataNotOfTheFormatIsRefusedWithoutQuotingIt()
    {
        assertRefused("v2\nportal=tcp://h:1\n", "not of format v1");
        assertRefused("portal=tcp://h:1\n", "not of format v1");
        assertRefused("v1\r\nportal=tcp://h:1\n", "not of format v1");
        assertRefused("v1\nhost=h\n", "no portal");
        assertRefused("v1\nportal=secret-nonsense\n", "line 2 is no portal address");
        assertRefused("v1\nportal=tcp://h:1\nsecret-nonsense\n", "line 3 is not key=value");
        assertRefused("v1\nportal=tcp://h:1\n=x\n", "line 3 is not key=value");
        assertRefused("v1\nhost=a\nhost=b\nportal=tcp://h:1\n", "a second host");
        assertRefused("v1\nportal=tcp://h:1\nmeta.z=1\nmeta.z=2\n", "a second meta.z");
        assertThatThrownBy(() -> EndpointCodec.decode("a", new byte[0])).hasMessage("no data");
        assertThatThrownBy(() -> EndpointCodec.decode("a", null)).hasMessage("no data");
        assertThatThrownBy(() -> EndpointCodec.decode("a", new byte[] {'v', '1', '\n', (byte) 0xFF}))
            .hasMessage("not UTF-8");
    }

    @Test
    void dataOverTheLimitIsNotRead()
    {
        final byte[] data = new byte[EndpointCodec.MAX_BYTES + 1];
        java.util.Arrays.fill(data, (byte) '\n');
        System.arraycopy("v1\nportal=tcp://h:1\n".getBytes(StandardCharsets.UTF_8), 0, data, 0, 20);
        assertThatThrownBy(() -> EndpointCodec.decode("a", data)).hasMessageContaining("over the limit of 65536");
        final byte[] atLimit = java.util.Arrays.copyOf(data, EndpointCodec.MAX_BYTES);
        assertThat(EndpointCodec.decode("a", atLimit).portals()).containsExactly(XioUri.parse("tcp://h:1"));
    }

    @Test
    void whatCouldNotBeReadBackIsNotWritten()
    {
        assertThatThrownBy(() -> EndpointCodec.encode(new Endpoint("a", "h\nportal=tcp://evil:1",
            List.of(XioUri.parse("tcp://h:1")), Map.of()))).hasMessageContaining("line break");
        assertThatThrownBy(() -> EndpointCodec.encode(new Endpoint("a", "h", List.of(XioUri.parse("tcp://h:1")),
            Map.of("k=v", "x")))).hasMessageContaining("without '='");
        assertThatThrownBy(() -> EndpointCodec.encode(new Endpoint("a", "h", List.of(XioUri.parse("tcp://h:1")),
            Map.of("big", "x".repeat(EndpointCodec.MAX_BYTES))))).hasMessageContaining("over the limit");
    }

    private static void assertRefused(final String data, final String reason)
    {
        assertThatThrownBy(() -> EndpointCodec.decode("a", data.getBytes(StandardCharsets.UTF_8)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(reason)
            .message().doesNotContain("secret");
    }
}
