package io.xio.engine.session.call;

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
 * The streams that live on one lane: those this side opened and those the peer opened, each found by its id in
 * its opener's id space. Takes the peer's opens (deduplicated through the session's window, admitted within the
 * stream limits, handed to the handler), routes STREAM_DATA and CREDIT to their stream, stops the peer's streams a
 * CANCEL covers, and writes what waited for room. A frame for a stream that ended is dropped; one for a stream never
 * opened is a violation. Owned by the lane's context thread.
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
    /** Streams this side opened, and the highest id among all it ever opened here. */
    private final Long2ObjectHashMap<LaneStream> mine = new Long2ObjectHashMap<>();
    private long highestMine;
    /** Streams the peer opened, and the highest id among all the opens it sent here. */
    private final Long2ObjectHashMap<LaneStream> peers = new Long2ObjectHashMap<>();
    private long highestPeers;
    private final ArrayDeque<LaneStream> waiting = new ArrayDeque<>();

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

    void waitForRoom(final LaneStream stream)
    {
        waiting.add(stream);
    }

    /** A stream is over on the wire: it is forgotten here (its later frames are dropped). */
    void forget(final LaneStream stream)
    {
        (stream instanceof OpenedStream ? mine : peers).remove(stream.id, stream);
    }

    /** A stream had its last signal: what it took of the limits is free again. */
    void released(final LaneStream stream)
    {
        admission.release(stream instanceof AcceptedStream accepted ? accepted.connectionStreams : null);
        session.drain().closeIfDrained();
    }

    /** Writes an opener's REQUEST; false when the connection has no room now. */
    boolean sendOpen(final OpenedStream stream, final Outbound open, final long remaining)
    {
        if (!writable())
        {
            return false;
        }
        return lane.connection().sendMessage(FrameType.REQUEST, session.mineFlag() | FrameFlags.STREAM,
            session.id(), stream.id, 0, open, remaining, null, false) != FrameEncoder.NO_ROOM;
    }

    /** Tells the acceptor to stop stream {@code id} (a CANCEL, answered as any). */
    void sendCancel(final long id)
    {
        if (lane.isUp())
        {
            lane.cancels.send(id, id);
        }
    }

    // ---- this side's streams ----

    /** The context thread: a stream this side opens takes its place here and its open goes out. */
    void open(final OpenedStream stream)
    {
        if (!lane.isUp())
        {
            stream.connectionLost(new io.xio.engine.ConnectionException("no connection up"));
            return;
        }
        mine.put(stream.id, stream);
        highestMine = Math.max(highestMine, stream.id);
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
        if (stream instanceof OpenedStream opened && opened.state() == StreamState.OPENING)
        {
            opened.refused(frame);
            return true;
        }
        return false;
    }

    // ---- the peer's streams ----

    /** A REQUEST with the stream flag: the peer opens a stream. */
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
        highestPeers = Math.max(highestPeers, id);
        switch (window.begin(id, this))
        {
            case NEW -> accept(frame, slab, inbound, id);
            case EXECUTING, DONE ->
            {
                if (!peers.containsKey(id))
                {
                    inbound.answerStatus(id, flags, Status.RESPONSE_LOST);
                }
            }
            case TOO_OLD -> inbound.answerStatus(id, flags, Status.OUTSIDE_WINDOW);
            case FULL -> inbound.answerStatus(id, flags, Status.BACK_PRESSURE);
        }
    }

    private void accept(final Frame frame, final Slab slab, final InboundCalls inbound, final long id)
    {
        final int flags = frame.flags();
        if (handler == null)
        {
            window.complete(id, Status.NO_HANDLER, null, 0);
            inbound.answerStatus(id, flags, Status.NO_HANDLER);
            return;
        }
        final Connection connection = lane.connection();
        final String refused = admission.admit(connection.peerStreams);
        if (refused != null)
        {
            window.abandon(id); // refused unrun: a later open of it may be taken
            lane.loop.refused(PeerRefusal.STREAM_LIMIT, connection.remoteAddress(), "stream open over the " +
                "limit of " + refused);
            inbound.answerStatus(id, flags, Status.BACK_PRESSURE);
            return;
        }
        window.complete(id, Status.OK, null, 0); // the stream holds no place in the window while it lasts
        final long remaining = frame.contextLength() == 0 ? CallContext.NO_DEADLINE :
            CallContext.remaining(frame.buffer(), frame.contextOffset());
        final AcceptedStream stream = new AcceptedStream(this, id, flags & FrameFlags.FROM_ACCEPTOR,
            Messages.of(slab, frame, leaks), remaining, connection.peerStreams);
        peers.put(id, stream);
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
            if (!stream.isDone())
            {
                stream.fail(ex);
            }
        }
    }

    // ---- frames of either side's streams ----

    void onData(final Frame frame, final Slab slab)
    {
        final LaneStream stream = find(frame);
        if (stream != null)
        {
            stream.receiver.onData(frame, slab);
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
        if (stream != null)
        {
            stream.onCredit(StreamFrames.received(frame), StreamFrames.limitSequence(frame),
                StreamFrames.limitBytes(frame));
        }
    }

    /** The stream a STREAM_DATA or CREDIT is for; null for one that ended; a violation for one never opened. */
    private LaneStream find(final Frame frame)
    {
        requireStreams(frame);
        final long id = frame.requestId();
        final boolean ours = (frame.flags() & FrameFlags.FROM_ACCEPTOR) == session.mineFlag();
        final LaneStream stream = (ours ? mine : peers).get(id);
        if (stream == null && (id < 1 || id > (ours ? highestMine : highestPeers)))
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " for stream " + id + ", which " +
                (ours ? "this side" : "the peer") + " never opened, on session " + session.id());
        }
        return stream;
    }

    private void requireStreams(final Frame frame)
    {
        if (!session.streams())
        {
            throw new ProtocolViolationException(FrameType.name(frame.type()) + " of a stream on session " +
                session.id() + ", whose peer did not announce streams");
        }
    }

    /** A CANCEL of ids {@code first..last}: the peer's streams among them end; how many did. */
    int onCancel(final long first, final long last)
    {
        if (peers.isEmpty())
        {
            return 0;
        }
        final List<LaneStream> covered = new ArrayList<>();
        for (final LaneStream stream : peers.values())
        {
            if (stream.id >= first && stream.id <= last)
            {
                covered.add(stream);
            }
        }
        for (final LaneStream stream : covered)
        {
            ((AcceptedStream)stream).peerCancelled();
        }
        return covered.size();
    }

    /** The connection has room again: what waited for it is written, as far as it goes. */
    void drainWaiting()
    {
        for (int n = waiting.size(); n > 0 && writable(); n--)
        {
            waiting.poll().resume();
        }
    }

    /** The lane's connection was lost, or the lane closed: every stream on it fails. */
    void failAll(final Throwable cause)
    {
        waiting.clear();
        if (mine.isEmpty() && peers.isEmpty())
        {
            return;
        }
        final List<LaneStream> all = new ArrayList<>(mine.values());
        all.addAll(peers.values());
        for (final LaneStream stream : all)
        {
            stream.connectionLost(cause);
        }
    }

    /** Streams open on this lane now (for monitoring; the context thread). */
    int open()
    {
        return mine.size() + peers.size();
    }
}
