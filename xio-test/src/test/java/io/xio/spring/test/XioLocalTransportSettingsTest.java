package io.xio.spring.test;

import io.xio.spring.test.app.BothApp;
import io.xio.spring.test.app.client.GreeterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the local-transport switch still checks of a configuration, and what it says it cannot: a misnamed SSL bundle
 * fails start-up, {@code tls://} portals and clients are named in one warning, {@code xio.enabled=false} turns the
 * switch off with the rest of xio.
 */
@ExtendWith(OutputCaptureExtension.class)
class XioLocalTransportSettingsTest
{
    @Test
    void aMisnamedPortalSslBundleStillFailsStartUpNamingTheProperty()
    {
        assertThatThrownBy(() -> new SpringApplicationBuilder(BothApp.class, XioLocalTransportAutoConfiguration.class)
            .properties("xio.portals[0].uri=tls://0.0.0.0:7000", "xio.portals[0].ssl.bundle=no-such-bundle",
                "xio.clients.greeter.uri=tls://localhost:7000/greeter").run().close())
            .hasStackTraceContaining("xio.portals[0].ssl.bundle").hasStackTraceContaining("no-such-bundle");
    }

    @Test
    void tlsPortalsAndClientsAreNamedInOneWarning(final CapturedOutput output)
    {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(BothApp.class,
            XioLocalTransportAutoConfiguration.class)
            .properties("xio.portals[0].uri=tls://0.0.0.0:7000", "xio.portals[1].uri=tcp://0.0.0.0:7001",
                "xio.clients.greeter.uri=tls://localhost:7000/greeter").run())
        {
            assertThat(app.getBean(GreeterClient.class).greet("tls")).as("tls meets tls").isEqualTo("hello tls");
            final String warning = output.getOut().lines().filter(line -> line.contains("run without TLS"))
                .reduce("", (a, b) -> a + b + "\n");
            assertThat(warning.lines()).hasSize(1);
            assertThat(warning).contains("WARN").contains("xio.portals[0].uri=tls://0.0.0.0:7000")
                .contains("xio.clients.greeter.uri=tls://localhost:7000/greeter").doesNotContain("7001");
        }
    }

    @Test
    void xioEnabledFalseTurnsTheSwitchOff()
    {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(BothApp.class,
            XioLocalTransportAutoConfiguration.class).properties("xio.enabled=false").run())
        {
            assertThat(app.getBeansOfType(XioLocalTransport.class)).isEmpty();
        }
    }
}
