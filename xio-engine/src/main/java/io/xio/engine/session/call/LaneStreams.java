package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.Limits;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.StreamLimits;
import io.xio.engine.XioUri;
import io.xio.engine.context.EventLoop;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.Status;
import io.xio.engine.protocol.StreamFrames;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.Messages;
import io.xio.engine.session.admission.DedupWindow;
import io.xio.engine.session.admission.StreamAdmission;
import io.xio.engine.session.connection.Connection;
import io.xio.engine.session.connection.StreamOutput;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
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
    /** How long a lane waits for another taking the same open ({@link #onOpen}): a bound, not a wait for work. */
    private static final int MAX_SPINS = 100_000;

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
    private final Long2ObjectHashMap<LaneStream> mine = new Long2ObjectHashMap<>();
    /** Streams the peer opened that this lane owns. */
    private final Long2ObjectHashMap<LaneStream> peers = new Long2ObjectHashMap<>();
    /**
     * The peer's streams on their way here (their opener resumed them on this lane): what arrives for them meanwhile,
     * in order, at most about a window of it.
     */
    private final Long2ObjectHashMap<ArrayDeque<Object>> arriving = new Long2ObjectHashMap<>();
    private final ArrayDeque<LaneStream> waiting = new ArrayDeque<>();
    /** Ends of the acceptor's this side acknowledged on the current connection: owed again if it goes down. */
    private final ArrayDeque<long[]> acknowledged = new ArrayDeque<>();

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
            admission.release(accepted.connectionStreams, accepted.host);
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
     * Tells the acceptor to stop stream {@code id} (a CANCEL, answered as any); while the lane is down, the session
     * sends it on the next connection that comes up, so that the acceptor does not keep the stream for a resume.
     */
    void sendCancel(final long id)
    {
        if (lane.isUp())
        {
            lane.cancels.send(id, id);
        }
        else
        {
            all.owe(id, 0);
        }
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

    /**
     * This lane's thread: {@code stream} arrived from another lane. It resumes here when {@code resume} says so and the
     * lane is up (an opener always does), else waits: an acceptor for its opener, an opener for the lane to come up.
     * Then what came for it meanwhile is taken (a violation in it closes this lane's connection).
     */
    void adopt(final LaneStream stream, final boolean resume)
    {
        final boolean opened = stream instanceof OpenedStream;
        final ArrayDeque<Object> early = opened ? null : arriving.remove(stream.id);
        if (stream.state() == StreamState.DONE)
        {
            discard(early);
            return;
        }
        if (lane.isClosed())
        {
            final Lane next = session.isOpen() ? lane.ring.openOrParked(lane) : null;
            if (next != null)
            {
                // This lane closed meanwhile (another was up when its connection went): the stream goes on there.
                if (early != null)
                {
                    next.loop.execute(() -> next.streams.carry(stream.id, early));
                }
                stream.redirect(next.streams);
                next.loop.execute(() -> next.streams.adopt(stream, resume));
                return;
            }
            discard(early);
            stream.arrived();
            stream.connectionLost(new ConnectionException("session " + session.describe() + " closed while stream " +
                stream.id + " moved"));
            return;
        }
        (opened ? mine : peers).put(stream.id, stream);
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
        if (arriving.containsKey(id))
        {
            discard(arriving.remove(id));
            inbound().answerStatus(id, session.mineFlag() ^ FrameFlags.FROM_ACCEPTOR, Status.RESPONSE_LOST);
        }
    }

    /** Frames held on a lane that closed for a stream on its way: held here now, for the stream's arrival. */
    void carry(final long id, final ArrayDeque<Object> early)
    {
        final ArrayDeque<Object> here = arriving.get(id);
        if (here == null)
        {
            arriving.put(id, early);
        }
        else
        {
            here.addAll(early);
        }
    }

    private InboundCalls inbound()
    {
        return lane.inbound;
    }

    private static void discard(final ArrayDeque<Object> early)
    {
        if (early == null)
        {
            return;
        }
        Object next;
        while ((next = early.poll()) != null)
        {
            if (next instanceof StreamArrival arrival)
            {
                arrival.discard();
            }
        }
    }

    // ---- the peer's streams ----

    /** A REQUEST with the stream flag: the peer opens a stream, or resumes one after a connection loss. */
    void onOpen(final Frame frame, final Slab slab, final InboundCalls inbound)
    {
        requireStreams(frame);
        final int flags = frame.flags();
        if ((flags & (FrameFlags.ONE_WAY | FrameFlags.RECEIPT_REQUESTED)) != 0)
        {
            throw new ProtocolViolationException("a stream open that is one-way or asks for a receipt (flags " +
                flags + ") on session " + session.id());
        }
        final long id = DedupWindow.checkedId(frame.requestId());
        all.seen(id, false);
        if (resumed(id, (flags & FrameFlags.RETRANSMIT) != 0 ? frame.status() : -1))
        {
            return;
        }
        switch (window.begin(id, this))
        {
            case NEW -> accept(frame, slab, inbound, id);
            case EXECUTING, DONE ->
            {
                // Another lane may be taking the same open this moment (it registers the stream without blocking,
                // then marks the slot done): wait those few instructions, no longer. A call of that id is no stream.
                for (int spins = 0; spins < MAX_SPINS && window.call(id) instanceof LaneStreams; spins++)
                {
                    Thread.onSpinWait();
                }
                if (!resumed(id, (flags & FrameFlags.RETRANSMIT) != 0 ? frame.status() : -1))
                {
                    inbound.answerStatus(id, flags, Status.RESPONSE_LOST);
                }
            }
            case TOO_OLD -> inbound.answerStatus(id, flags, Status.OUTSIDE_WINDOW);
            case FULL -> inbound.answerStatus(id, flags, Status.BACK_PRESSURE);
        }
    }

    /**
     * Whether the open of {@code id} is one for a stream the session has: a re-send (its opener resumes it after a
     * connection loss, {@code resume} its count) moves it here, if it lives elsewhere, and resumes it there; an older
     * re-send read late from a connection that died, or a first open read after its re-send, changes nothing. A
     * stream resumes at most once per connection: more is a violation (each resume writes a window again).
     */
    private boolean resumed(final long id, final int resume)
    {
        final LaneStream stream = all.accepted.get(id);
        if (stream == null)
        {
            return false;
        }
        if (resume < 0 || !((AcceptedStream)stream).newerResume(resume))
        {
            return true; // stale: the stream already resumed from a later one
        }
        if (peers.get(id) == stream)
        {
            if (((AcceptedStream)stream).resumedOn(lane.connection()))
            {
                throw new ProtocolViolationException("stream " + id + " resumed twice on one connection of session " +
                    session.id());
            }
            stream.resume();
            return true;
        }
        if (!arriving.containsKey(id))
        {
            arriving.put(id, new ArrayDeque<>());
        }
        stream.moveHere(this);
        return true;
    }

    private void accept(final Frame frame, final Slab slab, final InboundCalls inbound, final long id)
    {
        try
        {
            take(frame, slab, inbound, id);
        }
        finally
        {
            window.abandon(id); // only if it is still executing here: a failure half-way leaves no slot taken
        }
    }

    private void take(final Frame frame, final Slab slab, final InboundCalls inbound, final long id)
    {
        final int flags = frame.flags();
        if (handler == null)
        {
            window.complete(id, Status.NO_HANDLER, null, 0);
            inbound.answerStatus(id, flags, Status.NO_HANDLER);
            return;
        }
        final Connection connection = lane.connection();
        final String refused = admission.admit(connection.peerStreams, connection.peerHost());
        if (refused != null)
        {
            window.abandon(id); // refused unrun: a later open of it may be taken
            lane.loop.refused(PeerRefusal.STREAM_LIMIT, connection.remoteAddress(), "stream open over the " +
                "limit of " + refused);
            inbound.answerStatus(id, flags, Status.BACK_PRESSURE);
            return;
        }
        final long remaining = frame.contextLength() == 0 ? CallContext.NO_DEADLINE :
            CallContext.remaining(frame.buffer(), frame.contextOffset());
        final AcceptedStream stream = new AcceptedStream(this, id, flags & FrameFlags.FROM_ACCEPTOR,
            Messages.of(slab, frame, leaks), remaining, connection.peerStreams, connection.peerHost());
        peers.put(id, stream);
        all.add(stream, false); // before the window says done: a re-send racing this on another lane finds it
        window.complete(id, Status.OK, null, 0); // the stream holds no place in the window while it lasts
        stream.begin();
        try
        {
            handler.onStream(stream);
        }
        catch (final Throwable ex)
        {
            if (ex instanceof VirtualMachineError error)
            {
                throw error;
            }
            LOG.warn("handler of {} failed on stream {}", describe(), id, ex);
            stream.handlerFailed(ex);
        }
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
        final ArrayDeque<Object> early = early(frame);
        if (early != null)
        {
            early.add(StreamArrival.of(frame, slab, leaks, target));
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
        final ArrayDeque<Object> early = early(frame);
        if (early != null)
        {
            early.add(new long[] {StreamFrames.received(frame), StreamFrames.limitSequence(frame),
                StreamFrames.limitBytes(frame)});
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
     * (the frame is dropped; its sender writes it again where the stream resumes). A peer that sends more than a
     * window meanwhile breaks the protocol.
     */
    private ArrayDeque<Object> early(final Frame frame)
    {
        if ((frame.flags() & FrameFlags.FROM_ACCEPTOR) == session.mineFlag() || arriving.isEmpty())
        {
            return null;
        }
        final ArrayDeque<Object> early = arriving.get(frame.requestId());
        if (early != null && early.size() > 2L * admission.limits().windowMessages() + 2)
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " for stream " + frame.requestId() +
                ": more than two windows of frames while it moved to resume");
        }
        return early;
    }

    private void requireStreams(final Frame frame)
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

    /**
     * The lane's connection is up (a reconnect, or another lane of the session came up): this side's streams here
     * resume on it, and what the session owes its peer about streams that ended goes on it.
     */
    void attached()
    {
        all.settle(this);
        for (final LaneStream stream : new ArrayList<>(mine.values()))
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
        if (endSequence == 0)
        {
            lane.cancels.send(id, id);
            return;
        }
        if (!lane.connection().streamOutput().sendCredit(session.mineFlag(), session.id(), id, endSequence,
            endSequence, 0))
        {
            all.owe(id, endSequence);
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
        clearWaiting();
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
        for (final LaneStream stream : new ArrayList<>(peers.values()))
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
            for (final LaneStream stream : new ArrayList<>(mine.values()))
            {
                stream.moveTo(other.streams, true);
            }
        }
    }

    /** Another lane of the session is up while this one is not: it takes this lane's streams. */
    void handOver(final Lane target)
    {
        target.loop.execute(() -> all.settle(target.streams));
        for (final LaneStream stream : new ArrayList<>(mine.values()))
        {
            stream.moveTo(target.streams, true);
        }
        for (final LaneStream stream : new ArrayList<>(peers.values()))
        {
            stream.moveTo(target.streams, false);
        }
    }

    private void clearWaiting()
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

    /** The lane closed: every stream on it fails. */
    void failAll(final Throwable cause)
    {
        clearWaiting();
        for (final ArrayDeque<Object> early : arriving.values())
        {
            discard(early);
        }
        arriving.clear();
        if (mine.isEmpty() && peers.isEmpty())
        {
            return;
        }
        final List<LaneStream> here = new ArrayList<>(mine.values());
        here.addAll(peers.values());
        for (final LaneStream stream : here)
        {
            stream.connectionLost(cause);
        }
    }

    /** Streams this lane owns now (for monitoring; the lane's thread). */
    int open()
    {
        return mine.size() + peers.size();
    }
}
