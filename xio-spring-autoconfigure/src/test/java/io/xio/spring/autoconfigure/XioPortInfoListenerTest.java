package io.xio.spring.autoconfigure;

import io.xio.engine.Portal;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code local.xio.port} and {@code local.xio.ports[i]}: the real ports of portals configured with port 0. */
class XioPortInfoListenerTest
{
    @Test
    void theEnvironmentHasThePortsOfThePortalsThatHaveOneAfterEveryStart()
    {
        runner(ServerApplication.class).withPropertyValues(
            "xio.portals[0].uri=shm://xio-port-info-" + UUID.randomUUID(), "xio.portals[1].uri=tcp://127.0.0.1:0",
            "xio.portals[2].uri=tcp://127.0.0.1:0").run(context ->
            {
                final XioServiceExporter exporter = context.getBean(XioServiceExporter.class);
                assertPorts(context.getEnvironment(), exporter.portals());
                exporter.stop();
                assertThat(exporter.portals()).isEmpty();
                exporter.start();
                assertPorts(context.getEnvironment(), exporter.portals());
            });
    }

    @Test
    void noPortalNoPort()
    {
        runner(ServerApplication.class).run(context ->
            assertThat(context.getEnvironment().containsProperty("local.xio.port")).isFalse());
    }

    private static void assertPorts(final org.springframework.core.env.Environment environment,
        final List<Portal> portals)
    {
        assertThat(portals).hasSize(3);
        assertThat(portals.get(1).uri().port()).isPositive();
        assertThat(environment.getProperty("local.xio.port", Integer.class)).isEqualTo(portals.get(1).uri().port());
        assertThat(environment.containsProperty("local.xio.ports[0]")).isFalse();
        assertThat(environment.getProperty("local.xio.ports[1]", Integer.class))
            .isEqualTo(portals.get(1).uri().port());
        assertThat(environment.getProperty("local.xio.ports[2]", Integer.class))
            .isEqualTo(portals.get(2).uri().port());
    }
}
