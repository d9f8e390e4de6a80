package io.xio.engine.transport.tls;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.SessionOptions;
import io.xio.engine.SetupDecision;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review (branch review-drain): a session the client opened over tls:// has its further connections sent over
 * plaintext tcp when the acceptor names a tcp portal as a connection portal; neither side checks the scheme
 * (ServerHandshake.connectionPortals takes any open portal, ClientHandshake.portals applies no weakenedBy).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReviewConnectionPortalTlsTest
{
    private static final TestCertificates CERTIFICATES = TestCertificates.create();
    private final TestEngines engines = new TestEngines();

    @AfterEach
    void close()
    {
        engines.close();
    }

    @Test
    void aTlsSessionsConnectionsStayOnTls() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("server").tls(CERTIFICATES.serverOptions()));
        server.register("where", request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8(Thread.currentThread().getName())));
        });
        final Portal plaintext = server.bind("tcp://127.0.0.1:0", SessionAcceptor.DEFAULT, 1);
        final Portal tls = server.bind("tls://127.0.0.1:0",
            request -> SetupDecision.accept().withConnectionPortals(List.of(plaintext.uri())), 0);
        final XioEngine client = engines.start(engines.builder("client").tls(CERTIFICATES.options(null)));
        final Set<String> servedBy = ConcurrentHashMap.newKeySet();
        try (Session session = client.connect(tls.uri().withResource("where").toString(),
            SessionOptions.DEFAULT.withConnections(2)))
        {
            assertThat(session.connectionCount()).isEqualTo(2);
            for (int t = 0; t < 4; t++)
            {
                final Thread caller = new Thread(() ->
                {
                    for (int i = 0; i < 20; i++)
                    {
                        try (Message m = session.request(Outbound.of(utf8("x"))).get(5, TimeUnit.SECONDS))
                        {
                            servedBy.add(text(m.header()));
                        }
                        catch (final Exception ex)
                        {
                            throw new AssertionError(ex);
                        }
                    }
                });
                caller.start();
                caller.join();
            }
        }
        assertThat(servedBy).as("contexts that served calls of a tls:// session; the plaintext portal is on " +
            "context 1").hasSize(1);
    }
}
