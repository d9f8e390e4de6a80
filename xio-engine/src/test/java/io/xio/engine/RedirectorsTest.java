package io.xio.engine;

import io.xio.engine.support.Redirectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Redirectors} and a custom redirecting {@link SessionAcceptor} through real engines: equal keys land on one
 * portal, keys spread over all, a redirected set-up is accepted where it lands (every portal shares the acceptor,
 * as the nodes of a cluster do), and with rendezvous hashing a member leaving moves only the keys it owned.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedirectorsTest
{
    private static final int KEYS = 30;

    private final TestEngines engines = new TestEngines();
    private final AtomicReference<SessionAcceptor> acceptor = new AtomicReference<>();
    private XioEngine server;
    private XioEngine client;
    private List<XioUri> members;
    private Portal front;

    @AfterEach
    void close()
    {
        engines.close();
    }

    /** Three member portals and a front one, all answering set-ups with {@link #acceptor}. */
    private void start()
    {
        server = engines.start("server");
        // Says which portal it was reached through: the one the session was accepted at.
        server.register("who", request ->
        {
            request.message().close();
            request.respond(Outbound.of(utf8(String.valueOf(request.session().uri().port()))));
        });
        final SessionAcceptor shared = request -> acceptor.get().onSetup(request);
        members = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            members.add(server.bind("tcp://127.0.0.1:0", shared).uri());
        }
        front = server.bind("tcp://127.0.0.1:0", shared);
        client = engines.start(engines.builder("client").contexts(1));
    }

    /** The port of the portal a session with {@code attributes} lands on, through the front portal. */
    private int landing(final Map<String, String> attributes) throws Exception
    {
        try (Session session = client.connect(front.uri().withResource("who").toString(),
            SessionOptions.DEFAULT.withAttributes(attributes));
             Message where = session.request(Outbound.of(utf8("?"))).get(5, TimeUnit.SECONDS))
        {
            return Integer.parseInt(text(where.header()));
        }
    }

    private Map<String, Integer> landings(final String attribute) throws Exception
    {
        final Map<String, Integer> landed = new HashMap<>();
        for (int k = 0; k < KEYS; k++)
        {
            landed.put("tenant-" + k, landing(Map.of(attribute, "tenant-" + k)));
        }
        return landed;
    }

    private Set<Integer> memberPorts()
    {
        final Set<Integer> ports = new HashSet<>();
        members.forEach(m -> ports.add(m.port()));
        return ports;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hash", "hashOnAttribute", "rendezvousOnAttribute"})
    void equalKeysLandTogetherKeysSpreadOverThePortalsAndARedirectIsAcceptedWhereItLands(final String kind)
        throws Exception
    {
        start();
        acceptor.set(switch (kind)
        {
            case "hash" -> Redirectors.hash(members, request ->
                Integer.parseInt(request.attributes().get("tenant").substring("tenant-".length())));
            case "hashOnAttribute" -> Redirectors.hashOnAttribute(members, "tenant");
            default -> Redirectors.rendezvousOnAttribute(() -> members, "tenant");
        });
        final Map<String, Integer> first = landings("tenant");
        final Map<String, Integer> second = landings("tenant");
        assertThat(second).as("equal keys land together").isEqualTo(first);
        assertThat(new HashSet<>(first.values())).as("spread over every member, never the front")
            .isEqualTo(memberPorts());
    }

    @Test
    void aCustomAcceptorRedirectsPastAnUnreachablePortalAndAcceptsTheRest() throws Exception
    {
        start();
        final Portal closed = server.bind("tcp://127.0.0.1:0");
        final XioUri unreachable = closed.uri();
        closed.close();
        acceptor.set(request ->
        {
            if (request.redirects() > 0 || !"gold".equals(request.attributes().get("tier")))
            {
                return SetupDecision.accept();
            }
            return SetupDecision.redirect(List.of(unreachable, members.get(2)));
        });
        assertThat(landing(Map.of("tier", "gold"))).as("the next portal named").isEqualTo(members.get(2).port());
        assertThat(landing(Map.of("tier", "tin"))).as("accepted at the front").isEqualTo(front.uri().port());
    }

    @Test
    void withRendezvousAMemberLeavingMovesOnlyTheKeysItOwned() throws Exception
    {
        start();
        final AtomicReference<List<XioUri>> current = new AtomicReference<>(List.copyOf(members));
        acceptor.set(Redirectors.rendezvous(current::get, request -> request.attributes().get("shard")));
        final Map<String, Integer> before = landings("shard");
        final XioUri leaving = members.get(1);
        assertThat(before).as("the leaving member owned some keys").containsValue(leaving.port());

        current.set(List.of(members.get(0), members.get(2)));
        final Map<String, Integer> after = landings("shard");
        before.forEach((key, port) ->
        {
            if (port == leaving.port())
            {
                assertThat(after.get(key)).as(key + " moved to a member still there").isIn(members.get(0).port(),
                    members.get(2).port());
            }
            else
            {
                assertThat(after.get(key)).as(key + " stays").isEqualTo(port);
            }
        });

        current.set(List.of());
        assertThatThrownBy(() -> landing(Map.of("shard", "any"))).isInstanceOf(SessionRejectedException.class)
            .hasMessageContaining("no server of the service");
    }
}
