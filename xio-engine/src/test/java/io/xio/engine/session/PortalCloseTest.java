package io.xio.engine.session;

import io.xio.engine.Portal;
import io.xio.engine.PortalOptions;
import io.xio.engine.protocol.FrameType;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A closed portal accepts nothing more: not a connection handed over in the turn between {@link Portal#close} and its
 * listener stopping on the portal's context (a select can still hand over one that queued before the close), nor a
 * session set up afterwards on a connection accepted before.
 */
class PortalCloseTest
{
    @Test
    void aConnectionHandedOverAfterTheCloseIsClosedUnanswered()
    {
        try (ScriptedEngine server = new ScriptedEngine())
        {
            final Portal portal = echoPortal(server);

            portal.close();
            final ScriptedWire.Link late = server.wire.accept(); // before the context's turn stops the listener
            server.turn();

            assertThat(portal.isOpen()).isFalse();
            assertThat(late.closedByEngine).as("the late connection is closed").isTrue();
            late.deliver(PeerFrames.setup(1, "echo"));
            server.turn();
            assertThat(late.sent(FrameType.SETUP_ACCEPT)).as("no session accepted at the closed portal").isEmpty();
        }
    }

    @Test
    void aSessionSetUpAfterTheCloseOnAnEarlierConnectionIsRefusedAsByADrainingServer()
    {
        try (ScriptedEngine server = new ScriptedEngine())
        {
            final Portal portal = echoPortal(server);
            final ScriptedWire.Link early = server.wire.accept();
            server.turn();

            portal.close();
            server.turn();
            early.deliver(PeerFrames.setup(1, "echo"));
            server.turn();

            assertThat(early.sent(FrameType.SETUP_ACCEPT)).isEmpty();
            assertThat(early.sent(FrameType.SETUP_REJECT)).singleElement()
                .satisfies(reject -> assertThat(reject.headerText()).contains("the portal is closed"));
        }
    }

    /** A {@code wire://} portal of {@code server}, whose {@code echo} service closes what it is sent. */
    private static Portal echoPortal(final ScriptedEngine server)
    {
        server.engine.register("echo", request -> request.message().close());
        final CompletableFuture<Portal> binding =
            server.engine.bindAsync("wire://here", PortalOptions.DEFAULT.withContext(0));
        server.turn();
        return binding.join();
    }
}
