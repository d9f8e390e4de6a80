package io.xio.engine.session.call;

import io.xio.engine.PeerRefusal;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.RequestHandler;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.CallContext;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.Messages;
import io.xio.engine.session.admission.DedupWindow;
import io.xio.engine.session.admission.StreamAdmission;
import io.xio.engine.session.connection.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams the peer opens on one lane: a first open is judged by the session's deduplication window, admitted
 * within the stream limits and handed to the handler; a re-sent open (its opener resumes the stream after a
 * connection loss) moves the stream here from wherever it lives and resumes it. Part of one lane's
 * {@link LaneStreams}; owned by the lane's context thread.
 */
final class PeerOpens
{
    private static final Logger LOG = LoggerFactory.getLogger(PeerOpens.class);
    /** How long a lane waits for another taking the same open ({@link #onOpen}): a bound, not a wait for work. */
    private static final int MAX_SPINS = 100_000;

    private final LaneStreams streams;
    private final Lane lane;
    private final LaneHost session;
    private final SessionStreams all;
    private final DedupWindow window;
    private final StreamAdmission admission;
    private final RequestHandler handler;
    private final LeakTracker leaks;

    PeerOpens(final LaneStreams streams, final Lane lane, final LaneContext context)
    {
        this.streams = streams;
        this.lane = lane;
        this.session = context.session();
        this.all = context.sessionStreams();
        this.window = context.calls().window();
        this.admission = context.streams();
        this.handler = context.handler();
        this.leaks = context.leaks();
    }

    /** A REQUEST with the stream flag: the peer opens a stream, or resumes one after a connection loss. */
    void onOpen(final Frame frame, final Slab slab, final InboundCalls inbound)
    {
        streams.requireStreams(frame);
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
                for (int spins = 0; spins < MAX_SPINS && window.call(id) instanceof PeerOpens; spins++)
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
        if (streams.peers.get(id) == stream)
        {
            if (((AcceptedStream)stream).resumedOn(lane.connection()))
            {
                throw new ProtocolViolationException("stream " + id + " resumed twice on one connection of session " +
                    session.id());
            }
            stream.resume();
            return true;
        }
        if (!streams.arriving.containsKey(id))
        {
            streams.arriving.put(id, new ArrivingFrames(admission.limits()));
        }
        stream.moveHere(streams);
        return true;
    }

    private void accept(final Frame frame, final Slab slab, final InboundCalls inbound, final long id)
    {
        boolean settled = false;
        try
        {
            take(frame, slab, inbound, id);
            settled = true;
        }
        finally
        {
            if (!settled)
            {
                window.abandon(id); // a failure half-way leaves no slot taken (a settled slot is not ours to free)
            }
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
        final AcceptedStream stream = new AcceptedStream(streams, id, flags & FrameFlags.FROM_ACCEPTOR,
            Messages.of(slab, frame, leaks), remaining, connection.peerStreams, connection.peerHost());
        streams.peers.put(id, stream);
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
            LOG.warn("handler of {} failed on stream {}", streams.describe(), id, ex);
            stream.handlerFailed(ex);
        }
    }
}
