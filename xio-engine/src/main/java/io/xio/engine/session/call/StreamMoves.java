package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.Status;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * How a lane's streams move: after its connection was lost (to another lane of the session that is up, or waiting
 * where they are), when another lane comes up, when a stream arrives from another lane (with what came for it
 * meanwhile), and what the session owes its peer about streams that ended (CANCELs, END acknowledgements), said on
 * the next connection. Part of one lane's {@link LaneStreams}; owned by the lane's context thread.
 */
final class StreamMoves
{
    private final LaneStreams streams;
    private final Lane lane;
    private final LaneHost session;
    private final SessionStreams all;
    /** Ends of the acceptor's this side acknowledged on the current connection: owed again if it goes down. */
    private final ArrayDeque<long[]> acknowledged = new ArrayDeque<>();

    StreamMoves(final LaneStreams streams, final Lane lane, final SessionStreams all)
    {
        this.streams = streams;
        this.lane = lane;
        this.session = lane.session;
        this.all = all;
    }

    /**
     * This side had the acceptor's end of stream {@code id} at {@code sequence} and acknowledged it on this lane's
     * connection: if that connection goes down, the session says it again on the next one, in case the acknowledgement
     * went down with it. The last {@link SessionStreams#OWED} are remembered.
     */
    void ended(final long id, final long sequence)
    {
        if (acknowledged.size() >= SessionStreams.OWED)
        {
            acknowledged.pollFirst();
        }
        acknowledged.add(new long[] {id, sequence});
    }

    /**
     * This lane's thread: {@code stream} arrived from another lane. It resumes here when {@code resume} says so and the
     * lane is up (an opener always does), else waits: an acceptor for its opener, an opener for the lane to come up.
     * Then what came for it meanwhile is taken (a violation in it closes this lane's connection).
     */
    void adopt(final LaneStream stream, final boolean resume)
    {
        final boolean opened = stream instanceof OpenedStream;
        final ArrivingFrames early = opened ? null : streams.arriving.remove(stream.id);
        if (stream.state() == StreamState.DONE)
        {
            discard(early);
            return;
        }
        if (lane.isClosed())
        {
            // What came for it here goes: its opener, which sent it on this lane's connection, lost that too and
            // resumes the stream again, writing it all again (its credit, what is unacknowledged, its end). Carried
            // on, it would count twice against the stream's window where the stream goes.
            discard(early);
            final Lane next = session.isOpen() ? lane.ring.openOrParked(lane) : null;
            if (next != null)
            {
                // This lane closed meanwhile (another was up when its connection went): the stream goes on there.
                // An acceptor's waits there for its opener's re-sent open: resumed now, it would take that re-send
                // for a second resume on one connection.
                stream.redirect(next.streams);
                next.loop.execute(() -> next.streams.moves.adopt(stream, false));
                return;
            }
            stream.arrived();
            stream.connectionLost(new ConnectionException("session " + session.describe() + " closed while stream " +
                stream.id + " moved"));
            return;
        }
        (opened ? streams.mine : streams.peers).put(stream.id, stream);
        stream.arrived();
        if (!opened && !resume)
        {
            ((AcceptedStream)stream).sleep();
        }
        if (lane.isUp() && (opened || resume))
        {
            stream.resume();
        }
        if (early == null)
        {
            return;
        }
        try
        {
            Object next;
            while ((next = early.poll()) != null && stream.state() != StreamState.DONE)
            {
                if (next instanceof StreamArrival arrival)
                {
                    stream.receiver.arrive(arrival);
                }
                else
                {
                    final long[] credit = (long[])next;
                    stream.onCredit(credit[0], credit[1], credit[2]);
                }
            }
        }
        catch (final ProtocolViolationException ex)
        {
            if (lane.isUp())
            {
                lane.connection().close(ex);
            }
        }
        finally
        {
            discard(early);
        }
    }

    /**
     * A stream this lane held frames for ended before it came: they go, and its opener, which sent its open again
     * here, hears that the stream is not there to resume.
     */
    void dropArriving(final long id)
    {
        if (streams.arriving.containsKey(id))
        {
            discard(streams.arriving.remove(id));
            inbound().answerStatus(id, session.mineFlag() ^ FrameFlags.FROM_ACCEPTOR, Status.RESPONSE_LOST);
        }
    }

    private InboundCalls inbound()
    {
        return lane.inbound;
    }

    private static void discard(final ArrivingFrames early)
    {
        if (early != null)
        {
            early.discard();
        }
    }

    /**
     * The lane's connection is up (a reconnect, or another lane of the session came up): this side's streams here
     * resume on it, and what the session owes its peer about streams that ended goes on it.
     */
    void attached()
    {
        all.settle(this);
        for (final LaneStream stream : new ArrayList<>(streams.mine.values()))
        {
            stream.resume();
        }
    }

    /** What the session owes the peer about stream {@code id}, ended here: a CANCEL (0) or an end acknowledgement. */
    void settle(final long id, final long endSequence)
    {
        if (!lane.isUp())
        {
            all.owe(id, endSequence);
            return;
        }
        final boolean said = endSequence == 0 ? lane.cancels.send(id, id) : lane.connection().streamOutput()
            .sendCredit(session.mineFlag(), session.id(), id, endSequence, endSequence, 0);
        if (!said)
        {
            all.owe(id, endSequence); // the connection is closing: the next one says it
        }
    }

    /**
     * The lane's connection was lost. With another lane of the session up ({@code other}) every stream moves there:
     * this side's resume at once, the peer's wait for their opener to resume them. Without one they stay (a client
     * lane reconnects, a server lane waits for its client to attach again), the peer's waiting the same way; on a
     * lane that closed ({@code kept} false) they fail.
     */
    void connectionLost(final Lane other, final boolean kept, final Throwable cause)
    {
        streams.clearWaiting();
        long[] entry;
        while ((entry = acknowledged.poll()) != null)
        {
            all.owe(entry[0], entry[1]);
        }
        if (!kept)
        {
            failAll(cause);
            return;
        }
        for (final LaneStream stream : streams.peers.values())
        {
            stream.receiver.connectionLost();
        }
        for (final LaneStream stream : streams.mine.values())
        {
            stream.receiver.connectionLost();
        }
        if (other != null)
        {
            // What this side owes goes on the lane still up, not on whichever comes up next (perhaps none).
            other.loop.execute(() -> all.settle(other.streams.moves));
        }
        for (final LaneStream stream : new ArrayList<>(streams.peers.values()))
        {
            if (other != null)
            {
                stream.moveTo(other.streams, false);
            }
            else
            {
                ((AcceptedStream)stream).sleep();
            }
        }
        if (other != null)
        {
            for (final LaneStream stream : new ArrayList<>(streams.mine.values()))
            {
                stream.moveTo(other.streams, true);
            }
        }
    }

    /** Another lane of the session is up while this one is not: it takes this lane's streams. */
    void handOver(final Lane target)
    {
        target.loop.execute(() -> all.settle(target.streams.moves));
        for (final LaneStream stream : new ArrayList<>(streams.mine.values()))
        {
            stream.moveTo(target.streams, true);
        }
        for (final LaneStream stream : new ArrayList<>(streams.peers.values()))
        {
            stream.moveTo(target.streams, false);
        }
    }

    /** The lane closed: every stream on it fails. */
    void failAll(final Throwable cause)
    {
        streams.clearWaiting();
        for (final ArrivingFrames early : streams.arriving.values())
        {
            discard(early);
        }
        streams.arriving.clear();
        if (streams.mine.isEmpty() && streams.peers.isEmpty())
        {
            return;
        }
        final List<LaneStream> here = new ArrayList<>(streams.mine.values());
        here.addAll(streams.peers.values());
        for (final LaneStream stream : here)
        {
            stream.connectionLost(cause);
        }
    }
}
