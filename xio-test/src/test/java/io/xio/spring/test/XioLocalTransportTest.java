package io.xio.spring.test;

import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import io.xio.spring.service.XioServiceExporter;
import io.xio.spring.test.app.BothApp;
import io.xio.spring.test.app.Greeter;
import io.xio.spring.test.app.client.GreeterClient;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service and its client in one {@code @SpringBootTest} context, configured as over the network (a tcp portal at
 * a fixed port, a tcp client of it), run over the local transport: no port is bound, the client's session is local.
 */
@SpringBootTest(classes = BothApp.class, properties = {"xio.portals[0].uri=tcp://0.0.0.0:7000",
    "xio.clients.greeter.uri=tcp://localhost:7000/greeter"})
@AutoConfigureXioLocalTransport
class XioLocalTransportTest
{
    @Autowired
    private GreeterClient greeter;

    @Autowired
    private XioEngine engine;

    @Autowired
    private XioServiceExporter exporter;

    @Autowired
    private XioLocalTransport local;

    @Autowired
    private BeanFactory beans;

    @LocalXioPort
    private int port;

    @Test
    void theClientCallsTheServiceOverTheLocalTransport()
    {
        assertThat(greeter.greet("local")).isEqualTo("hello local");
        assertThat(engine.sessions()).filteredOn(session -> !session.isServerSide()).isNotEmpty()
            .allSatisfy(session -> assertThat(session.peerAddresses())
                .containsOnly("local://" + local.namespace() + "-tcp-7000"));
        assertThat(engine.sessions()).filteredOn(Session::isServerSide).isNotEmpty()
            .allSatisfy(session -> assertThat(session.peerAddresses()).allMatch(a -> a.startsWith("local://")));
    }

    @Test
    void noPortIsBound()
    {
        assertThat(exporter.portals()).extracting(Portal::uri).extracting(uri -> uri.scheme() + "://" + uri.host())
            .containsExactly("local://" + local.namespace() + "-tcp-7000");
        assertThat(engine.portals()).extracting(portal -> portal.uri().scheme()).containsOnly("local");
    }

    @Test
    void aClientGivenLocalXioPortReachesThePortal()
    {
        assertThat(port).isEqualTo(7000);
        final Greeter byHand = XioClientFactoryBean.create(Greeter.class, null,
            "tcp://127.0.0.1:" + port + "/greeter", beans);
        assertThat(byHand.greet("by hand")).isEqualTo("hello by hand");
    }
}
