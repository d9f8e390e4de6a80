package io.xio.spring.test;

import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.test.app.BothApp;
import io.xio.spring.test.app.client.GreeterClient;
import io.xio.spring.test.app.server.ServerApp;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local-transport switch lets no test pass that production would fail: a {@code tls://} client of a plain
 * {@code tcp://} portal is not served, a client given another context's {@code local.xio.port} does not reach its own
 * context's portal, and two contexts with the same {@code local://} portal do not collide.
 */
class XioLocalTransportFidelityTest
{
    /**
     * In production a tls:// client of a plain tcp:// portal fails its handshake; under the switch both become the
     * same local portal, so the misconfiguration passes every test.
     */
    @Test
    void aTlsClientOfAPlainTcpPortalIsNotSilentlyServed()
    {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(BothApp.class,
            XioLocalTransportAutoConfiguration.class)
            .properties("xio.portals[0].uri=tcp://0.0.0.0:7000", "xio.clients.greeter.uri=tls://localhost:7000/greeter")
            .run())
        {
            String answer;
            try
            {
                answer = app.getBean(GreeterClient.class).greet("tls");
            }
            catch (final RuntimeException expected)
            {
                answer = null;
            }
            assertThat(answer).as("a tls client was served by a plaintext tcp portal").isNull();
        }
    }

    /**
     * Context A serves at port 0 (stand-in 49152); context B, which also has a portal at port 0, is given A's
     * {@code local.xio.port}: its client must reach A or fail, never B's own portal with the same stand-in port.
     */
    @Test
    void aClientGivenAnotherContextsLocalXioPortDoesNotReachItsOwnPortal()
    {
        try (ConfigurableApplicationContext a = new SpringApplicationBuilder(ServerApp.class,
            XioLocalTransportAutoConfiguration.class).properties("xio.portals[0].uri=tcp://127.0.0.1:0").run())
        {
            final int port = a.getEnvironment().getRequiredProperty("local.xio.port", Integer.class);
            try (ConfigurableApplicationContext b = new SpringApplicationBuilder(BothApp.class,
                XioLocalTransportAutoConfiguration.class).properties("xio.portals[0].uri=tcp://127.0.0.1:0",
                "xio.clients.greeter.uri=tcp://127.0.0.1:" + port + "/greeter").run())
            {
                try
                {
                    b.getBean(GreeterClient.class).greet("b");
                }
                catch (final RuntimeException failedLoudly)
                {
                    // acceptable: the documented "no local portal" failure
                }
                assertThat(b.getBean(XioEngine.class).sessions()).filteredOn(Session::isServerSide)
                    .as("B's client, aimed at A's port " + port + ", was served by B's own portal").isEmpty();
            }
        }
    }

    /**
     * docs/testing.md says test contexts under the switch never collide; a {@code local://} portal is left in the
     * JVM-wide namespace, so two live test contexts with the same local portal do.
     */
    @Test
    void twoContextsWithTheSameLocalPortalBothStart()
    {
        final String[] properties = {"xio.portals[0].uri=local://xio-review-kv"};
        try (ConfigurableApplicationContext first = new SpringApplicationBuilder(ServerApp.class,
            XioLocalTransportAutoConfiguration.class).properties(properties).run();
            ConfigurableApplicationContext second = new SpringApplicationBuilder(ServerApp.class,
                XioLocalTransportAutoConfiguration.class).properties(properties).run())
        {
            assertThat(second.isActive()).isTrue();
        }
    }
}
