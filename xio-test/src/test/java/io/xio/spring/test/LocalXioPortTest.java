package io.xio.spring.test;

import io.xio.engine.Portal;
import io.xio.engine.XioEngine;
import io.xio.engine.XioUri;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import io.xio.spring.service.XioPortalsExportedEvent;
import io.xio.spring.service.XioServiceExporter;
import io.xio.spring.test.app.Greeter;
import io.xio.spring.test.app.server.ServerApp;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.event.EventListener;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without the local transport: portals at port 0 bind real random ports, which {@code local.xio.port},
 * {@code local.xio.ports[i]} and the {@link XioPortalsExportedEvent} report; a client given the port reaches the
 * service over tcp.
 */
@SpringBootTest(classes = {ServerApp.class, LocalXioPortTest.Events.class}, properties = {
    "xio.portals[0].uri=shm://xio-test-local-port-${random.uuid}", "xio.portals[1].uri=tcp://127.0.0.1:0",
    "xio.portals[2].uri=tcp://127.0.0.1:0"})
class LocalXioPortTest
{
    /** Keeps the export events. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Events
    {
        final List<XioPortalsExportedEvent> exported = new CopyOnWriteArrayList<>();

        @EventListener
        void exported(final XioPortalsExportedEvent event)
        {
            exported.add(event);
        }
    }

    @LocalXioPort
    private int port;

    @Value("${local.xio.ports[2]}")
    private int third;

    @Autowired
    private XioServiceExporter exporter;

    @Autowired
    private Events events;

    @Autowired
    private BeanFactory beans;

    @Test
    void localXioPortIsThePortOfTheFirstPortalWithOne()
    {
        final List<Portal> portals = exporter.portals();
        assertThat(port).isPositive().isEqualTo(portals.get(1).uri().port());
        assertThat(third).isPositive().isNotEqualTo(port).isEqualTo(portals.get(2).uri().port());
        assertThat(portals.get(1).uri().scheme()).isEqualTo("tcp");
    }

    @Test
    void theEventGivesEveryPortalsBoundUri()
    {
        assertThat(events.exported).hasSize(1);
        assertThat(events.exported.get(0).getExporter()).isSameAs(exporter);
        assertThat(events.exported.get(0).getPortals()).extracting(Portal::uri).map(XioUri::scheme)
            .containsExactly("shm", "tcp", "tcp");
        assertThat(events.exported.get(0).getPortals()).isEqualTo(exporter.portals());
    }

    @Test
    void aClientGivenTheRandomPortCallsTheService()
    {
        final Greeter greeter = XioClientFactoryBean.create(Greeter.class, null,
            "tcp://127.0.0.1:" + port + "/greeter", beans);
        assertThat(greeter.greet("tcp")).isEqualTo("hello tcp");
        assertThat(beans.getBean(XioEngine.class).sessions()).filteredOn(session -> !session.isServerSide())
            .extracting(session -> session.uri().scheme()).containsOnly("tcp");
    }
}
