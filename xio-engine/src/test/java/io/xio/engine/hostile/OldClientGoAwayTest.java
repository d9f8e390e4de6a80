package io.xio.engine.hostile;

import io.xio.engine.Portal;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.ECHO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A drain seen by clients from before GOAWAY, whose SETUP ends without the {@code u8 features} field: they are
 * sent no GOAWAY (they would take it for a violation, close and come back, in a loop) and are closed at the end of
 * the grace; a client announcing GOAWAY in the same drain is sent one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OldClientGoAwayTest
{
    private final TestEngines engines = new TestEngines();

    @AfterEach
    void close()
    {
        engines.close();
    }

    @Test
    void aClientThatDoesNotAnnounceGoAwayIsSentNoneAndClosedAtTheEndOfTheGrace() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("echo", ECHO);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        try (RawPeer old = new RawPeer("127.0.0.1", portal.uri().port(), 0);
             RawPeer current = new RawPeer("127.0.0.1", portal.uri().port(), 0))
        {
            final long oldSession = old.setUp("echo"); // credentials kind 0, and nothing after them
            current.send(RawPeer.setup(1, "echo", new byte[] {SetupCodec.CREDENTIALS_NONE, SetupCodec.FEATURES}));
            final RawPeer.Received accepted = current.read(Duration.ofSeconds(5));
            assertThat(accepted.type()).isEqualTo(FrameType.SETUP_ACCEPT);

            final CompletableFuture<Void> drained = server.drain(List.of(),
                TestEngines.scaled(Duration.ofSeconds(1)));
            final RawPeer.Received told = current.answer();
            assertThat(told.type()).as("the client that announced GOAWAY hears it").isEqualTo(FrameType.GOAWAY);
            assertThat(told.sessionId()).isEqualTo(accepted.sessionId());

            final RawPeer.Received first = old.answer();
            assertThat(first).as("the old client hears nothing until the grace is over, then the CLOSE").isNotNull();
            assertThat(first.type()).isEqualTo(FrameType.CLOSE);
            assertThat(first.sessionId()).isEqualTo(oldSession);
            drained.get(10, TimeUnit.SECONDS);
        }
    }
}
