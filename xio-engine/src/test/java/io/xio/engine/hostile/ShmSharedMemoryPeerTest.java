package io.xio.engine.hostile;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.memory.SharedMemory;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.transport.shm.ShmTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shm peer that abuses shared-memory data references: every bad reference or announcement closes its connection
 * and nothing else. The first test shows the raw peer's good reference works, so the closes are the checks' doing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmSharedMemoryPeerTest
{
    private static final Path DIR = new ShmTransport().directory();
    private final TestEngines engines = new TestEngines();
    private final String name = "t-" + UUID.randomUUID().toString().substring(0, 13);
    private final List<ByteBuffer> files = new ArrayList<>();
    private final BlockingQueue<Boolean> seen = new LinkedBlockingQueue<>();
    private Portal portal;
    private XioEngine server;

    @AfterEach
    void close()
    {
        engines.close();
        files.forEach(SharedMemory::free);
    }

    private ShmRawPeer peer() throws Exception
    {
        if (server == null)
        {
            server = engines.start("shared-hostile-server");
            server.register("look", request ->
            {
                final Message message = request.message();
                seen.add(message.inShared() && message.segment(0).get(0) == 42);
                request.respond(Outbound.of(utf8("ok")).releaseAfterSend(message));
            });
            server.register("echo", ECHO);
            // lets the sender's bytes go at once, however slowly the answer goes out
            server.register("drop", request ->
            {
                request.message().close();
                request.respond(Outbound.of(utf8("ok")));
            });
            portal = server.bind("shm://" + name);
        }
        return new ShmRawPeer(DIR, name);
    }

    private SharedMemory.Region region(final int bytes)
    {
        final SharedMemory.Region region = SharedMemory.allocate(DIR, bytes);
        files.add(region.buffer());
        region.buffer().put(0, (byte)42);
        return region;
    }

    /** Another client's session on the same server still works. */
    private void othersUnaffected()
    {
        final XioEngine client = engines.start("shared-hostile-client");
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            session.request(Outbound.of(utf8("still here"))).get(10, TimeUnit.SECONDS).close();
        }
        catch (final Exception ex)
        {
            throw new AssertionError(ex);
        }
    }

    @Test
    void aGoodReferenceIsReadInPlace() throws Exception
    {
        final SharedMemory.Region region = region(4096);
        try (ShmRawPeer peer = peer())
        {
            final long session = peer.setUp("look");
            peer.announce(1, 4096, region.file().getFileName().toString());
            peer.send(ShmRawPeer.sharedRequest(session, 1, 1, 0, 100));
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isTrue();
            final long[] response = peer.read(Duration.ofSeconds(10));
            assertThat(response).isNotNull();
            assertThat(response[0]).isEqualTo(FrameType.RESPONSE);
            assertThat(peer.closedWithin(Duration.ofMillis(300))).isFalse();
        }
    }

    @Test
    void aReferenceOutsideTheRegionClosesTheConnection() throws Exception
    {
        final SharedMemory.Region region = region(4096);
        try (ShmRawPeer peer = peer())
        {
            final long session = peer.setUp("look");
            peer.announce(1, 4096, region.file().getFileName().toString());
            peer.send(ShmRawPeer.sharedRequest(session, 1, 1, 4000, 200));
            assertThat(peer.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(seen).isEmpty();
        othersUnaffected();
    }

    @Test
    void aNegativeOffsetClosesTheConnection() throws Exception
    {
        final SharedMemory.Region region = region(4096);
        try (ShmRawPeer peer = peer())
        {
            final long session = peer.setUp("look");
            peer.announce(1, 4096, region.file().getFileName().toString());
            peer.send(ShmRawPeer.sharedRequest(session, 1, 1, -64, 100));
            assertThat(peer.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(seen).isEmpty();
    }

    @Test
    void aReferenceToARegionNeverAnnouncedClosesTheConnection() throws Exception
    {
        try (ShmRawPeer peer = peer())
        {
            final long session = peer.setUp("look");
            peer.send(ShmRawPeer.sharedRequest(session, 1, 7, 0, 100));
            assertThat(peer.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(seen).isEmpty();
        othersUnaffected();
    }

    @Test
    void moreRegionsThanTheLimitCloseTheConnection() throws Exception
    {
        try (ShmRawPeer peer = peer())
        {
            final long session = peer.setUp("look");
            for (int id = 1; id <= 64; id++)
            {
                peer.announce(id, 4096, region(4096).file().getFileName().toString());
            }
            peer.send(ShmRawPeer.sharedRequest(session, 1, 64, 0, 100));
            assertThat(seen.poll(10, TimeUnit.SECONDS)).as("64 regions are within the limit").isTrue();
            peer.announce(65, 4096, region(4096).file().getFileName().toString());
            assertThat(peer.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        othersUnaffected();
    }

    @Test
    void aFileThatIsNotASharedBufferIsNotMapped() throws Exception
    {
        try (ShmRawPeer peer = peer())
        {
            peer.setUp("look");
            peer.announce(1, 4096, "../../etc/passwd");
            assertThat(peer.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        try (ShmRawPeer peer = peer())
        {
            peer.setUp("look");
            peer.announce(1, 8192, region(4096).file().getFileName().toString()); // not the file's size
            assertThat(peer.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        othersUnaffected();
    }

    @Test
    void aPeerThatSendsReferencesButReadsNothingOfItsRingIsCutOff() throws Exception
    {
        final SharedMemory.Region region = region(4096);
        try (ShmRawPeer peer = peer())
        {
            final long session = peer.setUp("drop");
            peer.announce(1, 4096, region.file().getFileName().toString());
            boolean open = true;
            for (long id = 1; open && id <= 100_000; id++)
            {
                open = peer.sendWhenRoom(ShmRawPeer.sharedRequest(session, id, 1, 0, 100));
            }
            // the releases it does not read pile up in the server only up to a bound: then the connection closes
            assertThat(peer.goneWithin(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(server.refusals(PeerRefusal.SHARED_RELEASE)).isEqualTo(1);
        assertThat(server.refusals(PeerRefusal.WRITE_STALL)).isZero();
        othersUnaffected();
    }

    @Test
    void aSharedReferenceOverTcpClosesTheConnection() throws Exception
    {
        final XioEngine tcp = engines.start("shared-hostile-tcp");
        tcp.register("look", request -> request.respond(Outbound.of(utf8("ok")).releaseAfterSend(request.message())));
        final Portal bound = tcp.bind("tcp://127.0.0.1:0");
        try (RawPeer peer = new RawPeer(bound.uri().port()))
        {
            final long session = peer.setUp("look");
            peer.send(ShmRawPeer.sharedRequest(session, 1, 1, 0, 100));
            assertThat(peer.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
    }
}
