package io.xio.spring.test;

import io.xio.engine.Portal;
import io.xio.spring.service.XioServiceExporter;
import io.xio.spring.test.app.BothApp;
import io.xio.spring.test.app.client.GreeterClient;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Test contexts with the same portal configuration as {@link XioLocalTransportTest}'s, alive at the same time (Spring
 * caches the other context, and this test starts one more): each binds its own local portals and its client reaches
 * its own service. A portal at port 0 gets a stand-in port that {@code local.xio.port} reports.
 */
@SpringBootTest(classes = BothApp.class, properties = {"xio.portals[0].uri=tcp://0.0.0.0:7000",
    "xio.portals[1].uri=tcp://0.0.0.0:0", "xio.clients.greeter.uri=tcp://localhost:7000/greeter"})
@AutoConfigureXioLocalTransport
class XioLocalTransportContextsTest
{
    @Autowired
    private GreeterClient greeter;

    @Autowired
    private XioServiceExporter exporter;

    @Autowired
    private XioLocalTransport local;

    @Value("${local.xio.ports[1]}")
    private int secondPort;

    @Test
    void anotherContextWithTheSameConfigurationBindsPortalsOfItsOwn()
    {
        try (ConfigurableApplicationContext other = new SpringApplicationBuilder(BothApp.class,
            XioLocalTransportAutoConfiguration.class)
            .properties("xio.portals[0].uri=tcp://0.0.0.0:7000", "xio.portals[1].uri=tcp://0.0.0.0:0",
                "xio.clients.greeter.uri=tcp://localhost:7000/greeter")
            .run())
        {
            final String otherNamespace = other.getBean(XioLocalTransport.class).namespace();
            assertThat(otherNamespace).isNotEqualTo(local.namespace());
            assertThat(other.getBean(XioServiceExporter.class).portals()).extracting(Portal::uri)
                .allSatisfy(uri -> assertThat(uri.host()).startsWith(otherNamespace + "-"));
            assertThat(other.getBean(GreeterClient.class).greet("other")).isEqualTo("hello other");
            assertThat(greeter.greet("this")).isEqualTo("hello this");
        }
    }

    @Test
    void aPortalAtPortZeroGetsAStandInPortThatLocalXioPortsReport()
    {
        final int standIn = exporter.portals().get(1).uri().port();
        assertThat(standIn).isPositive().isNotEqualTo(7000);
        assertThat(exporter.portals().get(1).uri().host()).isEqualTo(local.namespace() + "-tcp-" + standIn);
        assertThat(secondPort).isEqualTo(standIn);
    }
}
