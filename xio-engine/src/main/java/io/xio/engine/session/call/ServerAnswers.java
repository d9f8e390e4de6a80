package io.xio.engine.session.call;

import io.xio.engine.Limits;
import io.xio.engine.Outbound;
import io.xio.engine.PeerRefusal;
import io.xio.engine.XioException;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.Messages;
import io.xio.engine.session.SessionDrain;
import io.xio.engine.session.SessionIdentity;
import io.xio.engine.session.admission.ByteBudget;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.admission.DedupWindow;
import io.xio.engine.session.admission.HeldResponse;
import io.xio.engine.session.admission.Principals;
import io.xio.engine.session.admission.Refusals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The peer's calls on one session as this side runs and answers them: what may execute at once (the session's and
 * its principal's in-flight limits), each answer recorded in the deduplication window (copied, or held by reference
 * within the retained budgets when too large to copy) so that a retransmitted call gets it again, and sent on the
 * lane the call should be answered on. Any thread: the application answers from its own.
 */
public final class ServerAnswers
{
    /**
     * What the peer gets for a response too large to send: an error type and message that name no class and no
     * limit, and {@code RESOURCE_EXHAUSTED} on the last line, where the Spring layer reads an error code.
     */
    static final String OVERSIZE_ANSWER =
        "response-too-large\nthe response exceeds the message limits\nRESOURCE_EXHAUSTED";

    private final Limits limits;
    private final Refusals refusals;
    private final DedupWindow window;
    private final CallAdmission admission;
    /** This session's share of the engine's retained budget: responses held until the peer acknowledges them. */
    private final ByteBudget retained;
    /** The peer's calls executing here (shared with the drain, which waits for them, and the statistics). */
    private final AtomicInteger executing;
    private final SessionIdentity identity;
    private final SessionDrain drain;
    /** The session's address, where a call's connection has none left to name. */
    private final String address;
    /** The session's id and address, for messages. */
    private final Supplier<String> describe;

    public ServerAnswers(final Limits limits, final Refusals refusals, final DedupWindow window,
        final CallAdmission admission, final ByteBudget retained, final AtomicInteger executing,
        final SessionIdentity identity, final SessionDrain drain, final String address,
        final Supplier<String> describe)
    {
        this.limits = limits;
        this.refusals = refusals;
        this.window = window;
        this.admission = admission;
        this.retained = retained;
        this.executing = executing;
        this.identity = identity;
        this.drain = drain;
        this.address = address;
        this.describe = describe;
    }

    /**
     * One more of the peer's calls executes here: false when that is over this session's in-flight limit or its
     * principal's (all its sessions together). Counted either way; {@link #stoppedExecuting} undoes it.
     */
    boolean startedExecuting()
    {
        final boolean room = executing.incrementAndGet() <= limits.maxInFlight();
        final Principals.Share share = identity.principalShare;
        return share == null ? room : share.startedExecuting(limits.maxInFlightPerPrincipal()) && room;
    }

    void stoppedExecuting()
    {
        executing.decrementAndGet();
        final Principals.Share share = identity.principalShare;
        if (share != null)
        {
            share.stoppedExecuting();
        }
        drain.closeIfDrained();
    }

    /**
     * A call was answered (response == null: a one-way delivered). Any thread. Throws (after answering the call
     * with {@link #OVERSIZE_ANSWER}) when the response exceeds the limits the peer takes.
     */
    void answered(final ServerCall call, final int status, final Outbound response)
    {
        stoppedExecuting();
        if (response == null)
        {
            window.complete(call.id, status, null, 0);
            call.release(); // nothing to send
            return;
        }
        Messages.sealMetadata(response); // what is kept and resent is what was answered, whatever the caller does
        final String oversize = CallAdmission.oversize(response, 0, admission.sendLimits());
        if (oversize != null)
        {
            // Fail the call here rather than make the peer drop the connection over an oversized frame. The peer
            // learns no more than that (not this side's limits or classes); the responder learns the sizes.
            response.released();
            send(call, Status.APPLICATION_ERROR,
                Outbound.of(ByteBuffer.wrap(OVERSIZE_ANSWER.getBytes(StandardCharsets.UTF_8))));
            throw new XioException("the response to request " + call.id + " was not sent, the caller was told it " +
                "is too large: " + oversize);
        }
        send(call, status, response);
    }

    /** The peer cancelled call {@code id}, which had not been answered. */
    void cancelled(final long id)
    {
        stoppedExecuting();
        window.complete(id, 0, null, 0);
    }

    private void send(final ServerCall call, final int status, final Outbound response)
    {
        final HeldResponse held = holdIfLarge(call, status, response);
        final Outbound sent = held == null ? response : held.share();
        final boolean kept = window.complete(call.id, status, response, limits.retainedResponseBytes(), held);
        if (held != null && !kept)
        {
            held.close(); // not executing here any more: the send's hold is the only one
        }
        call.ackRequested = kept;
        final Lane lane = call.replyLane();
        if (lane.loop.inContextThread())
        {
            lane.sendResponse(call, status, sent);
        }
        else
        {
            call.sendOn(lane, status, sent);
        }
    }

    /**
     * A response too large to copy into the window, held by reference for a retransmit until the peer acknowledges
     * it, when the budgets have room; null for one small enough to copy, or when they have none (counted).
     */
    private HeldResponse holdIfLarge(final ServerCall call, final int status, final Outbound response)
    {
        // The same size the window's copy is judged by (DedupWindow.complete): one of the two always keeps it.
        final long size = response.headerLength() + response.dataLength() +
            (response.metadata() == null ? 0 : response.metadata().encodedLength());
        if (size <= limits.retainedResponseBytes())
        {
            return null;
        }
        if (!retained.tryTake(size))
        {
            final String remote = call.lane.remoteAddress();
            refusals.refused(PeerRefusal.RETAINED_LIMIT, remote != null ? remote : address,
                "response of " + size + " bytes to request " + call.id + " of session " + describe.get() +
                " not kept for a retransmit: " + retained.used() + " bytes of responses wait for the peer's " +
                "acknowledgement, limits " + limits.maxRetainedBytesPerSession() + " per session and " +
                limits.maxRetainedBytes() + " per engine");
            return null;
        }
        return new HeldResponse(call.id, status, response, size, retained);
    }
}
