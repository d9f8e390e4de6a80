package io.xio.cluster;

import io.xio.engine.Credentials;
import io.xio.engine.GoAway;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A GOAWAY's portals are a redirect chosen by the server: a ServiceClient moving there does not send its credentials
 * to another host (issue 15: credentials do not follow a weakening redirect, another host included, unless
 * SessionOptions.withCredentialsOnRedirect(true)).
 */
class GoAwayCredentialsTest
{
    private final TestEngines engines = new TestEngines();
    private ServiceClient client;

    @AfterEach
    void close()
    {
        if (client != null)
        {
            client.close();
        }
        engines.close();
    }

    @Test
    void credentialsDoNotFollowAGoAwayToAnotherHost() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("svc", TestEngines.ECHO);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine elsewhere = engines.start("elsewhere");
        elsewhere.register("svc", TestEngines.ECHO);
        final List<Credentials> seen = new CopyOnWriteArrayList<>();
        final Portal other = elsewhere.bind("tcp://127.0.0.2:0", request ->
        {
            seen.add(request.credentials());
            return SessionAcceptor.DEFAULT.onSetup(request);
        });
        final StaticEndpointResolver resolver = StaticEndpointResolver.of("svc",
            List.of(Endpoint.of("one", "", List.of(portal.uri()))));
        client = ServiceClient.builder(engines.start("client"), resolver, "svc")
            .sessionOptions(SessionOptions.DEFAULT.withCredentials(() -> Credentials.bearer("the-token"))).build();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.endpoints().stream()
            .anyMatch(e -> e.state() == EndpointStatus.State.ACTIVE));
        final Session serverSide = server.sessions().stream().filter(Session::isServerSide).findFirst()
            .orElseThrow();

        serverSide.goAway(GoAway.redirect(List.of(other.uri()), "moved"));
        // The client has decided about the GOAWAY's portal once the old session is gone and the endpoint is served
        // again: it reopens at its own portal only after the migration's attempt ended.
        await().atMost(Duration.ofSeconds(10)).until(() -> !serverSide.isOpen() && client.endpoints().stream()
            .anyMatch(e -> e.state() == EndpointStatus.State.ACTIVE));
        assertThat(seen).as("credentials sent to " + other.uri() + ", another host than 127.0.0.1")
            .doesNotContain(Credentials.bearer("the-token"));
    }
}
