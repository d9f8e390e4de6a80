package io.xio.engine.context;

import io.xio.engine.Limits;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.session.PeerFrames;
import io.xio.engine.transport.LinkHandler;
import io.xio.engine.transport.SelectionHandler;
import io.xio.engine.transport.SocketReader;
import io.xio.engine.transport.tcp.TcpLink;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a busy loop finds bytes on its sockets: it reads a few directly every turn and looks at its selector once
 * a millisecond; with more sockets, or one waiting for room to write or streaming a large frame in or out, it
 * selects every turn. An always-ready pipe in the selector counts the selects that ran.
 */
class SocketReadingTest
{
    /** Stands still unless a test moves it: only the turns count, and a slow machine cannot add a select. */
    private final CachedNanoClock clock = new CachedNanoClock();
    private DozeAlarm alarm;
    private EventLoop loop;
    private Pipe pipe;
    /** How often the selector handed over the ready pipe: a select that ran. */
    private int selections;
    private ServerSocketChannel server;
    private SocketChannel peer;

    @BeforeEach
    void open() throws IOException
    {
        alarm = new DozeAlarm("socket-reading-test", 1);
        loop = new EventLoop("socket-reading-test", 0, Limits.DEFAULT, Duration.ZERO, false, true,
            clock, alarm, (failed, cause) ->
            {
            });
        pipe = Pipe.open();
        pipe.source().configureBlocking(false);
        pipe.source().register(loop.selector(), SelectionKey.OP_READ, (SelectionHandler)key -> selections++);
        pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
    }

    @AfterEach
    void close() throws IOException
    {
        if (peer != null)
        {
            peer.close();
            server.close();
        }
        loop.close();
        alarm.close();
        pipe.sink().close();
        pipe.source().close();
    }

    @Test
    void aFewSocketsAreReadEveryTurnAndTheSelectorIsLookedAtOnlyEveryFewTurns()
    {
        final List<CountingReader> readers = readers(2);

        turns(10);
        assertThat(readers).allMatch(reader -> reader.reads == 10);
        assertThat(selections).as("no select in the first turns, though a key is ready").isZero();

        turns(100);
        assertThat(selections).as("no select while the turns take no time").isZero();

        clock.advance(TimeUnit.MILLISECONDS.toNanos(1));
        turns(10);
        assertThat(selections).as("the selector looked at once a millisecond").isEqualTo(1);
        assertThat(readers).allMatch(reader -> reader.reads == 120);
    }

    @Test
    void slowTurnsLookAtTheSelectorEveryMillisecondStill()
    {
        readers(2);

        for (int i = 1; i <= 5; i++)
        {
            clock.advance(TimeUnit.MILLISECONDS.toNanos(2));
            turns(1);
            assertThat(selections).as("accepts and connects wait no more than a millisecond's turns").isEqualTo(i);
        }
    }

    @Test
    void moreSocketsAreLeftToTheSelectorEveryTurn()
    {
        final List<CountingReader> readers = readers(3);

        turns(1);
        assertThat(selections).isEqualTo(1);
        assertThat(readers).allMatch(reader -> reader.reads == 0);
    }

    @Test
    void aSocketWaitingForRoomToWriteBringsBackASelectEveryTurn()
    {
        final List<CountingReader> readers = readers(1);
        loop.selectorLinks(1);
        turns(1);
        assertThat(selections).isEqualTo(1);
        assertThat(readers.get(0).reads).as("its key's handler reads it now").isZero();

        loop.selectorLinks(-1);
        turns(1);
        assertThat(selections).as("room again: back to direct reads").isEqualTo(1);
        assertThat(readers.get(0).reads).isEqualTo(1);
    }

    @Test
    void aRemovedReaderIsNoLongerRead()
    {
        final List<CountingReader> readers = readers(2);
        loop.removeSocketReader(readers.get(1));
        turns(3);
        assertThat(readers.get(0).reads).isEqualTo(3);
        assertThat(readers.get(1).reads).isZero();
    }

    @Test
    void aTcpLinkStreamingALargeFrameInOrOutIsLeftToTheSelectorUntilItIsDone() throws IOException
    {
        final List<Integer> frames = new ArrayList<>();
        final TcpLink link = connect(frames);
        final int atStart = selections;
        turns(4);
        assertThat(selections - atStart).as("one socket, idle: read directly").isLessThanOrEqualTo(1);

        final byte[] inbound = PeerFrames.frame(FrameType.REQUEST, 0, 1, 1, 0, new byte[0], new byte[200_000]);
        peer.write(ByteBuffer.wrap(inbound, 0, 1000));
        awaitRead(link, frames, 0);
        final int partlyIn = selections;
        turns(4);
        assertThat(selections - partlyIn).as("a frame partly in: select every turn").isEqualTo(4);

        peer.write(ByteBuffer.wrap(inbound, 1000, inbound.length - 1000));
        awaitRead(link, frames, 1);
        assertThat(frames).containsExactly(inbound.length);
        final int wholeIn = selections;
        turns(4);
        assertThat(selections - wholeIn).as("the frame whole: direct reads again").isLessThanOrEqualTo(1);

        send(link, 128 * 1024);
        drainPeer(Frame.HEADER_LENGTH + Frame.SEGMENT_ENTRY_LENGTH + 128 * 1024);
        final int afterBulk = selections;
        turns(4);
        assertThat(selections - afterBulk).as("after a large write its acknowledgements stream in: select every turn")
            .isEqualTo(4);

        send(link, 16);
        drainPeer(Frame.HEADER_LENGTH + Frame.SEGMENT_ENTRY_LENGTH + 16);
        final int afterSmall = selections;
        turns(4);
        assertThat(selections - afterSmall).as("a small write: direct reads again").isLessThanOrEqualTo(1);

        link.close(null);
        final int closed = selections;
        turns(4);
        assertThat(selections - closed).as("closed: no longer counted").isLessThanOrEqualTo(1);
    }

    private TcpLink connect(final List<Integer> frames) throws IOException
    {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        peer = SocketChannel.open(server.getLocalAddress());
        final TcpLink link = new TcpLink(loop, server.accept());
        link.start(new LinkHandler()
        {
            @Override
            public void onFrame(final Slab slab, final int offset, final int length)
            {
                frames.add(length);
            }

            @Override
            public void onWritable()
            {
            }

            @Override
            public void onClosed(final Throwable cause)
            {
            }
        });
        return link;
    }

    /**
     * Turns the loop until its direct reads have taken in what the peer wrote (the pipe never lets it block); the
     * clock moves a nanosecond a turn, so that an arrival shows in the link's receive time, far from a millisecond.
     */
    private void awaitRead(final TcpLink link, final List<Integer> frames, final int expectedFrames)
    {
        final long before = link.lastReceiveNanos();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((link.lastReceiveNanos() == before || frames.size() < expectedFrames) &&
            System.nanoTime() < deadline)
        {
            clock.advance(1);
            loop.runOnce(Duration.ZERO);
        }
    }

    private static void send(final TcpLink link, final int dataLength)
    {
        final int length = Frame.HEADER_LENGTH + Frame.SEGMENT_ENTRY_LENGTH;
        final MutableDirectBuffer claim = link.claim(length);
        final int offset = link.claimOffset();
        Frame.writeHeader(claim, offset, length + dataLength, FrameType.REQUEST, 0, 1, 2, 0, 1, 0);
        claim.putInt(offset + Frame.HEADER_LENGTH, dataLength, Frame.ORDER);
        link.commit(new ByteBuffer[] {ByteBuffer.allocateDirect(dataLength)}, 1, null);
        link.flush();
    }

    /** Reads what the link sent, turning the loop meanwhile so that a partial write resumes. */
    private void drainPeer(final int length) throws IOException
    {
        peer.configureBlocking(false);
        final ByteBuffer into = ByteBuffer.allocate(length);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (into.hasRemaining() && System.nanoTime() < deadline)
        {
            peer.read(into);
            loop.runOnce(Duration.ZERO);
        }
        assertThat(into.hasRemaining()).as("the peer got the whole frame").isFalse();
    }

    private List<CountingReader> readers(final int count)
    {
        final List<CountingReader> readers = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final CountingReader reader = new CountingReader();
            loop.addSocketReader(reader);
            readers.add(reader);
        }
        return readers;
    }

    private void turns(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            loop.runOnce(Duration.ZERO);
        }
    }

    /** A socket with nothing to read that counts how often it was asked. */
    private static final class CountingReader implements SocketReader
    {
        private int reads;

        @Override
        public int readAvailable()
        {
            reads++;
            return 0;
        }
    }
}
