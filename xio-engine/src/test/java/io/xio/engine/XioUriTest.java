package io.xio.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class XioUriTest
{
    @Test
    void parsesSchemeHostPortAndResource()
    {
        assertThat(XioUri.parse("tcp://10.0.0.1:7000/kv")).isEqualTo(new XioUri("tcp", "10.0.0.1", 7000, "kv"));
        assertThat(XioUri.parse("tcp://[::1]:7000/kv").toString()).isEqualTo("tcp://[::1]:7000/kv");
        assertThat(XioUri.parse("shm://store/kv").endpoint().toString()).isEqualTo("shm://store");
        assertThatThrownBy(() -> XioUri.parse("not a uri")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anErrorShowsAPeersTextWithoutItsControlCharactersAndCut()
    {
        // A GOAWAY or redirect names portals a peer chose; the violation's message is logged.
        assertThatThrownBy(() -> XioUri.parse("oo\u0000\n2026-12-02 INFO forged line"))
            .hasMessage("malformed xio URI 'oo\\u0000\\u000a2026-12-02 INFO forged line': Illegal character in path " +
                "at index 2");
        assertThatThrownBy(() -> XioUri.parse("tcp://h/" + "x".repeat(10_000) + " "))
            .hasMessageStartingWith("malformed xio URI 'tcp://h/xxx").hasMessageContaining("xxx'...")
            .message().hasSizeLessThan(300);
    }

    @Test
    void aPortalOnEveryInterfaceIsReachedAtTheHostTheClientReached()
    {
        final XioUri contacted = XioUri.parse("tcp://server.example:7070/kv");
        // A server bound to 0.0.0.0 redirects there; a client on another host must not dial its own 0.0.0.0.
        assertThat(XioUri.parse("tcp://0.0.0.0:7071").reachedVia(contacted).toString())
            .isEqualTo("tcp://server.example:7071");
        assertThat(XioUri.parse("tcp://[::]:7071").reachedVia(contacted).toString())
            .isEqualTo("tcp://server.example:7071");
        assertThat(XioUri.parse("tcp://10.0.0.2:7071").reachedVia(contacted).toString())
            .isEqualTo("tcp://10.0.0.2:7071");
        assertThat(XioUri.parse("shm://other").reachedVia(contacted).toString()).isEqualTo("shm://other");
    }
}
