package io.xio.engine.hostile;

import io.xio.engine.PortalOptions;
import io.xio.engine.Portal;
import io.xio.engine.SetupDecision;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.ECHO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acceptor that names more connection portals than a client should keep and try: the SETUP_ACCEPT names at most
 * 16 (the client keeps the list for the session's life and walks it for every further connection).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionPortalLimitTest
{
    private final TestEngines engines = new TestEngines();

    @AfterEach
    void close()
    {
        engines.close();
    }

    @Test
    void aSetUpAcceptNamesAtMostSixteenConnectionPortals() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("echo", ECHO);
        final List<XioUri> many = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            many.add(server.bind("tcp://127.0.0.1:0").uri());
        }
        final Portal portal = server.bind("tcp://127.0.0.1:0",
            PortalOptions.DEFAULT.withAcceptor(request -> SetupDecision.accept().withConnectionPortals(many))
                .withContext(0));
        try (RawPeer peer = new RawPeer("127.0.0.1", portal.uri().port(), 0))
        {
            peer.send(RawPeer.setup(1, "echo"));
            final RawPeer.Received accepted = peer.read(Duration.ofSeconds(5));
            assertThat(accepted.type()).isEqualTo(FrameType.SETUP_ACCEPT);
            final SetupCodec.Reader body = accepted.reader();
            body.map();
            body.i32(); // in flight
            body.i32(); // dedup window
            body.bytes(); // secret
            for (int i = 0; i < 4; i++)
            {
                body.i32(); // the sizes it accepts
            }
            final List<String> named = body.strings();
            assertThat(named).hasSize(16);
            assertThat(named).containsExactlyElementsOf(many.subList(0, 16).stream()
                .map(uri -> uri.endpoint().toString()).toList());
        }
    }
}
