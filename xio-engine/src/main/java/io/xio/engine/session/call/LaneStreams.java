package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.Limits;
import io.xio.engine.Outbound;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.StreamLimits;
import io.xio.engine.XioUri;
import io.xio.engine.context.EventLoop;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.StreamFrames;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.admission.ByteBudget;
import io.xio.engine.session.admission.DedupWindow;
import io.xio.engine.session.admission.StreamAdmission;
import io.xio.engine.session.connection.StreamOutput;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * The streams one lane owns: those this side opened and those the peer opened, each found by its id in its opener's
 * id space (the session's {@link SessionStreams} knows them all, wherever they live). Takes the peer's opens
 * (deduplicated through the session's window, admitted within the stream limits, handed to the handler) and their
 * re-sends after a connection loss (the stream moves here from the lane that had it and resumes), routes STREAM_DATA
 * and CREDIT to their stream (holding them for a stream on its way here), stops the peer's streams a CANCEL covers,
 * writes what waited for room, and after a loss moves its streams to a lane still up or keeps them for the reconnect.
 * A frame for a stream that ended is dropped; one for a stream never opened is a violation. Owned by the lane's
 * context thread.
 */
final class LaneStreams
{
    private static final Logger LOG = LoggerFactory.getLogger(LaneStreams.class);

    private final Lane lane;
    private final LaneHost session;
    private final StreamAdmission admission;
    private final RequestHandler handler;
    private final LeakTracker leaks;
    private final Session api;
    private final XioUri target;
    private final Supplier<Limits> sendLimits;
    private final DedupWindow window;
    /** Every stream of the session, wherever it lives. */
    private final SessionStreams all;
    /** Streams this side opened that this lane owns. */
    final Long2ObjectHashMap<LaneStream> mine = new Long2ObjectHashMap<>();
    /** Streams the peer opened that this lane owns. */
    final Long2ObjectHashMap<LaneStream> peers = new Long2ObjectHashMap<>();
    /** The peer's streams on their way here (their opener resumed them on this lane): what arrives meanwhile. */
    final Long2ObjectHashMap<ArrivingFrames> arriving = new Long2ObjectHashMap<>();
    private final ArrayDeque<LaneStream> waiting = new ArrayDeque<>();
    /** The streams' moves between lanes: after a loss, on a resume, and what the session owes its peer. */
    final StreamMoves moves;
    /** The peer's opens, first and re-sent. */
    final PeerOpens opens;
    /** {@link #endWaitNanos}. */
    private final long endWait;

    LaneStreams(final Lane lane, final LaneContext context)
    {
        this.lane = lane;
        this.session = context.session();
        this.admission = context.streams();
        this.handler = context.handler();
        this.leaks = context.leaks();
        this.api = context.api();
        this.target = context.target();
        this.sendLimits = context.sendLimits();
        this.window = context.calls().window();
        this.all = context.sessionStreams();
        this.moves = new StreamMoves(this, lane, all);
        this.opens = new PeerOpens(this, lane, context);
        this.endWait = session.keepaliveTimeout().plus(session.limits().writeStallTimeout())
            .plus(session.reconnectTimeout()).toNanos();
    }

    // ---- what the lane's streams need ----

    EventLoop loop()
    {
        return lane.loop;
    }

    Session api()
    {
        return api;
    }

    XioUri target()
    {
        return target;
    }

    Limits sendLimits()
    {
        return sendLimits.get();
    }

    StreamLimits limits()
    {
        return admission.limits();
    }

    LeakTracker leaks()
    {
        return leaks;
    }

    /**
     * How long an acceptor's ended stream waits for the acknowledgement of its end before it is forgotten: the longest
     * a well-behaved opener can take. An end waits in a connection whose peer reads nothing at most the write-stall
     * timeout before the connection is cut, a loss is seen within the keepalive timeout, and the opener attaches again
     * within the reconnect timeout (or the session ends) and resumes the stream at once, which writes the end again
     * and starts the wait over. A peer that never acknowledges keeps the stream's place in the limits no longer.
     */
    long endWaitNanos()
    {
        return endWait;
    }

    long sessionId()
    {
        return session.id();
    }

    int mineFlag()
    {
        return session.mineFlag();
    }

    String describe()
    {
        return "session " + session.describe();
    }

    void log(final String what, final Throwable failure)
    {
        LOG.warn("{} on {} failed", what, describe(), failure);
    }

    /** The connection's stream output while the lane is up, else null. */
    StreamOutput output()
    {
        return lane.isUp() ? lane.connection().streamOutput() : null;
    }

    boolean writable()
    {
        return lane.isUp() && lane.connection().writable();
    }

    StreamAdmission admission()
    {
        return admission;
    }

    /** The count of the streams the peer opened on the lane's connection (while it is up, else null). */
    ByteBudget peerStreams()
    {
        return lane.isUp() ? lane.connection().peerStreams : null;
    }

    /** The host of the lane's peer ({@code PeerCounts.hostOf}); while the lane is up. */
    String peerHost()
    {
        return lane.connection().peerHost();
    }

    /** The lane's connection now, as an identity to compare (a stream resumes once per connection), or null. */
    Object connectionIdentity()
    {
        return lane.isUp() ? lane.connection() : null;
    }

    void waitForRoom(final LaneStream stream)
    {
        waiting.add(stream);
    }

    /** A stream is over on the wire: it is forgotten here and in the session (its later frames are dropped). */
    void forget(final LaneStream stream)
    {
        final boolean opened = stream instanceof OpenedStream;
        (opened ? mine : peers).remove(stream.id, stream);
        all.remove(stream, opened);
    }

    /** A stream leaves this lane for another ({@link LaneStream#moveTo}). */
    void release(final LaneStream stream)
    {
        (stream instanceof OpenedStream ? mine : peers).remove(stream.id, stream);
    }

    /** A stream had its last signal and is over on the wire: what it took of the limits is free again. */
    void released(final LaneStream stream)
    {
        if (stream instanceof AcceptedStream accepted)
        {
            accepted.release(admission);
        }
        else
        {
            admission.release(null, null);
        }
        session.drain().closeIfDrained();
    }

    /**
     * Writes an opener's REQUEST (again, after a resume): {@code FrameEncoder.NO_ROOM} when the connection has no room
     * now, else {@code QUEUED} (the link tells {@code completion} when it is done with the buffers) or {@code COPIED}.
     */
    int sendOpen(final OpenedStream stream, final Outbound open, final long remaining, final int resume,
        final io.xio.engine.transport.SendCompletion completion)
    {
        if (!writable())
        {
            return FrameEncoder.NO_ROOM;
        }
        // A re-sent open carries its resume count in the status field, so that the acceptor can tell a late one.
        return lane.connection().sendMessage(FrameType.REQUEST, session.mineFlag() | FrameFlags.STREAM |
            (resume > 0 ? FrameFlags.RETRANSMIT : 0), session.id(), stream.id, resume, open, remaining, completion,
            false);
    }

    /** Whether a frame of {@code frameLength} bytes is copied whole on this lane's connection (true when down). */
    boolean inlines(final long frameLength)
    {
        return !lane.isUp() || lane.connection().streamOutput().inlines(frameLength);
    }

    /**
     * Tells the acceptor to stop stream {@code id} (a CANCEL, answered as any); while the lane is down, or its
     * connection closing takes no more, the session sends it on the next connection that comes up, so that the
     * acceptor does not keep the stream for a resume.
     */
    void sendCancel(final long id)
    {
        if (!lane.isUp() || !lane.cancels.send(id, id))
        {
            all.owe(id, 0);
        }
    }

    // ---- this side's streams ----

    /** The lane's thread: a stream this side opens takes its place here and its open goes out. */
    void open(final OpenedStream stream)
    {
        final Lane next = lane.isClosed() && session.isOpen() ? lane.ring.openOrParked(lane) : null;
        if (next != null)
        {
            stream.redirect(next.streams);
            next.loop.execute(() -> next.streams.open(stream));
            return;
        }
        if (lane.isClosed())
        {
            stream.connectionLost(new ConnectionException("session " + session.describe() + " is closed"));
            return;
        }
        mine.put(stream.id, stream);
        all.add(stream, true);
        stream.begin();
    }

    /** A RESPONSE: true when it answered the open of a stream of this side (a refusal), which then fails. */
    boolean onResponse(final Frame frame)
    {
        if (mine.isEmpty())
        {
            return false;
        }
        final LaneStream stream = mine.get(frame.requestId());
        if (stream instanceof OpenedStream opened && stream.state() != StreamState.DONE && !opened.wireEnded())
        {
            opened.refused(frame);
            return true;
        }
        return false;
    }


    // ---- frames of either side's streams ----

    void onData(final Frame frame, final Slab slab)
    {
        final LaneStream stream = find(frame);
        if (stream != null)
        {
            stream.receiver.onData(frame, slab);
            return;
        }
        final ArrivingFrames early = early(frame);
        if (early != null)
        {
            early.hold(frame, slab, leaks, target);
        }
    }

    void onCredit(final Frame frame)
    {
        final String problem = StreamFrames.checkCredit(frame);
        if (problem != null)
        {
            throw new ProtocolViolationException(problem + " on session " + session.id());
        }
        final LaneStream stream = find(frame);
        final long received = StreamFrames.received(frame);
        final long limitSequence = StreamFrames.limitSequence(frame);
        final long limitBytes = StreamFrames.limitBytes(frame);
        if (stream != null)
        {
            stream.onCredit(received, limitSequence, limitBytes);
            return;
        }
        final boolean ours = (frame.flags() & FrameFlags.FROM_ACCEPTOR) == session.mineFlag();
        final LaneStream elsewhere = ours ? null : all.accepted.get(frame.requestId());
        if (elsewhere instanceof AcceptedStream accepted && accepted.state() == StreamState.ENDED)
        {
            // An ended stream waiting, on another lane, for its end to be acknowledged: this is that acknowledgement.
            accepted.runOnOwner(() -> accepted.acknowledgedElsewhere(received));
            return;
        }
        final ArrivingFrames early = early(frame);
        if (early != null)
        {
            early.holdCredit(frame);
        }
    }

    /** The stream a STREAM_DATA or CREDIT is for, if this lane owns it; a violation for one never opened. */
    private LaneStream find(final Frame frame)
    {
        requireStreams(frame);
        final long id = frame.requestId();
        final boolean ours = (frame.flags() & FrameFlags.FROM_ACCEPTOR) == session.mineFlag();
        final LaneStream stream = (ours ? mine : peers).get(id);
        if (stream == null && !all.everOpened(id, ours))
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " for stream " + id + ", which " +
                (ours ? "this side" : "the peer") + " never opened, on session " + session.id());
        }
        return stream;
    }

    /**
     * Where a frame for a peer's stream on its way here waits, or null: the stream ended, or lives on another lane
     * (the frame is dropped; its sender writes it again where the stream resumes).
     */
    private ArrivingFrames early(final Frame frame)
    {
        if ((frame.flags() & FrameFlags.FROM_ACCEPTOR) == session.mineFlag() || arriving.isEmpty())
        {
            return null;
        }
        return arriving.get(frame.requestId());
    }

    void requireStreams(final Frame frame)
    {
        if (!session.streams())
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " of a stream on session " +
                session.id() + ", whose peer did not announce streams");
        }
    }

    /** A CANCEL of ids {@code first..last}: the peer's streams among them end, wherever they live; how many did. */
    int onCancel(final long first, final long last)
    {
        if (all.accepted.isEmpty())
        {
            return 0;
        }
        if (first == last)
        {
            final LaneStream one = all.accepted.get(first);
            if (one instanceof AcceptedStream accepted)
            {
                accepted.runOnOwner(accepted::peerCancelledHere);
                return 1;
            }
            return 0;
        }
        int cancelled = 0;
        for (final LaneStream stream : all.accepted.values())
        {
            if (stream.id >= first && stream.id <= last && stream instanceof AcceptedStream accepted)
            {
                cancelled++;
                accepted.runOnOwner(accepted::peerCancelledHere);
            }
        }
        return cancelled;
    }

    // ---- the lane's connection ----

    /** The connection has room again: what waited for it is written, as far as it goes. */
    void drainWaiting()
    {
        for (int n = waiting.size(); n > 0 && writable(); n--)
        {
            waiting.poll().writeWaiting();
        }
    }


    void clearWaiting()
    {
        LaneStream stream;
        while ((stream = waiting.poll()) != null)
        {
            if (stream.owns())
            {
                stream.noRoomToWaitFor();
            }
        }
    }

    /** Streams this lane owns now (for monitoring; the lane's thread). */
    int open()
    {
        return mine.size() + peers.size();
    }
}
