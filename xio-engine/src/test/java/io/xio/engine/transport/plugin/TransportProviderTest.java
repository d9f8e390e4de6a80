package io.xio.engine.transport.plugin;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.transport.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Transports plug in through {@link io.xio.engine.transport.TransportProvider}, with no code in the engine. */
class TransportProviderTest
{
    private final TestEngines engines = new TestEngines();

    @AfterEach
    void close()
    {
        engines.close();
    }

    @Test
    void aProviderOnTheClassPathServesItsSchemeInEveryEngine() throws Exception
    {
        final int listens = CountingTransportProvider.LISTENS.get();
        final int connects = CountingTransportProvider.CONNECTS.get();
        final XioEngine server = engines.start("plug-server");
        final XioEngine client = engines.start("plug-client");
        server.register("echo", request -> request.respond(
            Outbound.of(request.message().header()).releaseAfterSend(request.message())));
        final Portal portal = server.bind("counted://plugged");
        assertThat(portal.uri().toString()).isEqualTo("counted://plugged");
        try (Session session = client.connect("counted://plugged/echo");
             Message reply = session.request(Outbound.of(utf8("through the plug-in"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("through the plug-in");
        }
        assertThat(CountingTransportProvider.LISTENS.get()).isEqualTo(listens + 1);
        assertThat(CountingTransportProvider.CONNECTS.get()).isGreaterThan(connects);
    }

    @Test
    void eachEngineGetsATransportOfItsOwn()
    {
        final int before = CountingTransportProvider.TRANSPORTS.get();
        engines.start("plug-a");
        engines.start("plug-b");
        assertThat(CountingTransportProvider.TRANSPORTS.get()).isEqualTo(before + 2);
    }

    @Test
    void aTransportGivenToTheBuilderReplacesTheProvidedOneForThatEngineOnly() throws Exception
    {
        final int listens = CountingTransportProvider.LISTENS.get();
        final Transport replacement = new CountingTransportProvider().newTransport(); // counts too: use a fresh base
        final int afterMaking = CountingTransportProvider.LISTENS.get();
        final Transport quiet = new Transport()
        {
            @Override
            public String scheme()
            {
                return "counted";
            }

            @Override
            public io.xio.engine.transport.TransportListener listen(final io.xio.engine.XioUri address,
                final io.xio.engine.transport.TransportContext context,
                final java.util.function.Consumer<io.xio.engine.transport.TransportLink> onAccept)
            {
                throw new IllegalStateException("the builder's own transport was asked to listen at " + address);
            }

            @Override
            public Runnable connect(final io.xio.engine.XioUri address,
                final io.xio.engine.transport.TransportContext context, final ConnectCallback callback)
            {
                return replacement.connect(address, context, callback);
            }
        };
        final XioEngine engine = engines.start(engines.builder("plug-own").transport(quiet));
        assertThatThrownBy(() -> engine.bind("counted://own"))
            .hasMessageContaining("the builder's own transport was asked to listen at counted://own");
        assertThat(CountingTransportProvider.LISTENS.get()).isEqualTo(afterMaking).isEqualTo(listens);
        engines.start("plug-other").bind("counted://other").close(); // other engines keep the provided one
        assertThat(CountingTransportProvider.LISTENS.get()).isEqualTo(listens + 1);
    }

    @Test
    void anUnknownSchemeNamesTheTransportsThereAre()
    {
        final XioEngine engine = engines.start("plug-unknown");
        assertThatThrownBy(() -> engine.bind("carrier-pigeon://loft"))
            .isInstanceOf(XioException.class)
            .hasMessageContaining("no transport for scheme 'carrier-pigeon'")
            .hasMessageContaining("tcp").hasMessageContaining("shm").hasMessageContaining("local")
            .hasMessageContaining("counted");
        assertThatThrownBy(() -> engine.connect("rdma://127.0.0.1:7000/kv"))
            .hasMessageContaining("rdma comes with the io.xio:xio-rdma jar");
    }
}
