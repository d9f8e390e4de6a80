package io.xio.engine.session.call;

import io.xio.engine.ConnectionException;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.session.Futures;
import io.xio.engine.session.connection.Connection;
import org.agrona.collections.Long2ObjectHashMap;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * This side's requests on one lane: the ones sent and not yet answered (with their deadline timers), the
 * ones waiting for room on the connection or for a connection at all, and their cancels. After a connection
 * loss it retransmits them on another lane or keeps them for the reconnect. Owned by the lane's context thread.
 */
public final class OutboundCalls
{
    private final Lane lane;
    private final LaneHost session;
    private final Long2ObjectHashMap<PendingRequest> pending = new Long2ObjectHashMap<>();
    /** CANCELs sent on the current connection and not answered yet. */
    private final SentCancels cancels;
    private final ArrayDeque<PendingRequest> waiting = new ArrayDeque<>();

    OutboundCalls(final Lane lane)
    {
        this.lane = lane;
        this.session = lane.session;
        this.cancels = lane.cancels;
    }

    /** The request waiting for an answer to {@code id} here, or null. */
    PendingRequest get(final long id)
    {
        return pending.get(id);
    }

    /** Takes {@code request} off the books: it is being answered. */
    void answered(final PendingRequest request)
    {
        pending.remove(request.id);
        cancelTimer(request);
    }

    void submit(final PendingRequest request)
    {
        if (request.rangeCancel != null)
        {
            cancelMoved(request);
            return;
        }
        if (request.isFinished())
        {
            return;
        }
        if (request.future != null && request.future.isDone())
        {
            // Cancelled before a lane took it (the cancel's pass found nothing): one never written never left this
            // side, so it is known to be aborted; one written before a hand-off is not known to be, but its peer
            // may still stop it.
            final long id = request.id; // read before it fails: it goes back to its pool once told
            final boolean sent = request.sentOnce;
            if (!sent)
            {
                Futures.cancelAnswered(request.future, true);
            }
            request.fail(new RequestCancelledException("request " + id + " was cancelled"));
            if (sent && lane.isUp())
            {
                cancels.send(id, id);
            }
            return;
        }
        if (!request.sentOnce)
        {
            final io.xio.engine.SessionDrainingException draining = session.drain().failure();
            if (draining != null)
            {
                request.fail(draining); // never written: the caller may send it elsewhere
                return;
            }
        }
        if (lane.isClosed())
        {
            // The session closed, or this lane is gone: another lane may still carry it, or hold it for the client.
            if (!handOff(request, session.isOpen() ? lane.ring.openOrParked(lane) : null))
            {
                final Throwable why = session.closedBy();
                request.fail(session.isOpen() && !session.initiator() ?
                    new ConnectionException("no connection to the client of session " + session.describe()) :
                    new ConnectionException("session " + session.describe() + " is closed" +
                        (why == null ? "" : ": " + why.getMessage()), why));
            }
            return;
        }
        if (!lane.isUp())
        {
            // Picked while up, down by now: another connection of the session takes it, if one is up; else it waits
            // here for the reconnect (client) or for the client to attach again (a parked server lane).
            if (handOff(request, lane.ring.open(lane)))
            {
                return;
            }
            if (session.initiator() && request.idempotent)
            {
                // As for one in flight when the last connection went (connectionLost): not kept for the re-attach.
                request.fail(new ConnectionException("session " + session.describe() + " has no connection up " +
                    "(reconnecting); an idempotent call fails at once so that it may be sent elsewhere"));
                return;
            }
        }
        pending.put(request.id, request);
        if (request.timer == PendingRequest.NO_TIMER)
        {
            request.timer = lane.loop.schedule(request.deadline, request.expire);
        }
        if (lane.isUp() && waiting.isEmpty() && lane.connection().writable() && write(request))
        {
            return;
        }
        request.waited = true;
        waiting.add(request);
    }

    /**
     * Moves {@code request} to {@code other}'s context; false when there is no other lane. A range cancel on its
     * way to this lane would miss it, as {@code other} may have made its pass already: the request takes it along.
     */
    private boolean handOff(final PendingRequest request, final Lane other)
    {
        if (other == null)
        {
            return false;
        }
        for (final RangeCancel range : session.rangeCancels().inProgress())
        {
            if (range.covers(request.id) && range.awaitsPassOf(lane))
            {
                range.partStarted();
                request.rangeCancel = range;
                break;
            }
        }
        request.lane = other;
        other.loop.execute(request);
        return true;
    }

    private boolean write(final PendingRequest request)
    {
        final Connection connection = lane.connection();
        final int flags = request.flags | (request.sentOnce ? FrameFlags.RETRANSMIT : 0);
        if (request.sentOnce)
        {
            lane.loop.counters().retransmitted();
            session.retransmitted();
        }
        final ByteBuffer output = request.message.output();
        final int offered = output == null || request.exposedLength >= 0 ? -1 :
            connection.exposeOutput(flags, session.id(), request.id, output);
        // Relative, so the peer's clock need not agree with ours; at least 1 ns: the timer fails it here anyway.
        final long remaining = Math.max(1, request.deadline - lane.loop.nanoTime());
        final int result = connection.sendMessage(FrameType.REQUEST, flags, session.id(), request.id, 0,
            request.message, remaining, request, request.wantsWriteCompletion());
        if (result == FrameEncoder.NO_ROOM)
        {
            return false; // a descriptor without its request is overwritten by the next one
        }
        if (offered >= 0)
        {
            lane.fence.offer(request, offered, output.position());
        }
        if (result == FrameEncoder.QUEUED)
        {
            request.queuedInLink();
        }
        request.sentOnce = true;
        return true;
    }

    /** Writes the requests waiting for room, as far as the connection takes them. */
    void drainWaiting()
    {
        while (lane.isUp() && !waiting.isEmpty() && lane.connection().writable())
        {
            final PendingRequest request = waiting.peekFirst();
            if (request.isFinished() || pending.get(request.id) != request)
            {
                waiting.pollFirst();
                continue;
            }
            if (!write(request))
            {
                return;
            }
            waiting.pollFirst();
        }
    }

    /**
     * The session goes away: requests here never written fail with {@link io.xio.engine.SessionDrainingException}
     * (the waiting queue drops them lazily); those written stay for their answer, or their retransmit.
     */
    public void failUnsent()
    {
        final io.xio.engine.SessionDrainingException draining = session.drain().failure();
        if (draining == null || pending.isEmpty())
        {
            return;
        }
        for (final PendingRequest request : byId())
        {
            if (!request.sentOnce)
            {
                pending.remove(request.id);
                cancelTimer(request);
                request.fail(draining);
            }
        }
    }

    /** A one-way message without receipt was written: it is done. */
    void sent(final PendingRequest request)
    {
        if (pending.remove(request.id, request))
        {
            cancelTimer(request);
            request.complete(null);
        }
    }

    /** The deadline of {@code request} passed: it fails, and the peer is told to cancel it. */
    void expire(final PendingRequest request)
    {
        if (!pending.remove(request.id, request))
        {
            return;
        }
        if (lane.isUp())
        {
            final boolean sent = request.sentOnce;
            if (sent)
            {
                cancels.send(request.id, request.id);
            }
            request.fail(new XioTimeoutException("request " + request.id + " on session " + session.describe() +
                (sent ? " timed out; the peer was told to cancel it (it may have run)" :
                    " timed out before it was written: it did not run"), null, sent));
        }
        else
        {
            final Throwable lastFailure = lane.lastFailure();
            request.fail(new ConnectionException("no connection to " + (session.initiator() ? lane.target() :
                "the client of session " + session.describe()) + " for request " + request.id + " within its " +
                "deadline" + (lastFailure == null ? "" : ": " + lastFailure.getMessage()), lastFailure));
        }
    }

    /**
     * This lane's pass of {@code range}: its requests in the range fail as cancelled; those not written yet never
     * reach the peer (aborted here), those written are named in one CANCEL covering them (the ids this side has
     * unfinished span less than the peer's deduplication window, so the peer walks the whole of it), and those
     * written on a connection that is down now are not told to the peer (not known to be aborted).
     */
    void cancelRange(final RangeCancel range)
    {
        range.passing(lane);
        if (range.single())
        {
            cancelOne(range);
            return;
        }
        final boolean up = lane.isUp();
        final List<XioFuture<?>> told = new ArrayList<>();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        int here = 0;
        for (final PendingRequest request : byId())
        {
            if (!range.covers(request.id))
            {
                continue;
            }
            pending.remove(request.id);
            cancelTimer(request);
            // Read before it fails: the request goes back to its pool once told.
            final XioFuture<?> future = request.future;
            final boolean sent = request.sentOnce;
            if (sent && up)
            {
                first = Math.min(first, request.id);
                last = Math.max(last, request.id);
                if (future != null)
                {
                    told.add(future);
                }
            }
            else
            {
                here += sent ? 0 : 1;
                if (future != null)
                {
                    Futures.cancelAnswered(future, !sent);
                }
            }
            request.fail(new RequestCancelledException("request " + request.id + " was cancelled"));
        }
        if (first <= last)
        {
            cancels.send(first, last, told, range);
        }
        range.partDone(here);
    }

    /**
     * This lane's pass of a cancel of one id, as {@link #cancelRange} would make it, looked up rather than found
     * among every request in id order: a hedged call's loser, say, is cancelled while thousands are in flight.
     */
    private void cancelOne(final RangeCancel range)
    {
        final PendingRequest request = pending.remove(range.first);
        if (request == null)
        {
            range.partDone(0); // answered, failed, elsewhere, or moving here with this cancel along
            return;
        }
        cancelTimer(request);
        final XioFuture<?> future = request.future; // read before it fails: it goes back to its pool once told
        final long id = request.id;
        final boolean sent = request.sentOnce;
        final boolean tell = sent && lane.isUp();
        if (!tell && future != null)
        {
            Futures.cancelAnswered(future, !sent);
        }
        request.fail(new RequestCancelledException("request " + id + " was cancelled"));
        if (tell)
        {
            cancels.send(id, id, future == null ? List.of() : List.of(future), range);
        }
        range.partDone(sent ? 0 : 1); // a CANCEL sent reports its own count
    }

    /** A request that came from another lane with a range cancel its old lane had still to pass: cancelled here. */
    private void cancelMoved(final PendingRequest request)
    {
        final RangeCancel range = request.rangeCancel;
        request.rangeCancel = null;
        if (request.isFinished())
        {
            range.partDone(0); // cancelled on its own meanwhile
            return;
        }
        final XioFuture<?> future = request.future; // its old lane cancelled its timer before the hand-off
        final long id = request.id; // read before it fails: it goes back to its pool once told
        final boolean sent = request.sentOnce;
        final boolean tell = sent && lane.isUp();
        request.fail(new RequestCancelledException("request " + id + " was cancelled"));
        if (tell)
        {
            // The peer's window is the session's: a CANCEL here reaches the call whichever connection brought it.
            cancels.send(id, id, future == null ? List.of() : List.of(future), range);
        }
        else if (future != null)
        {
            Futures.cancelAnswered(future, !sent);
        }
        range.partDone(sent ? 0 : 1); // a CANCEL sent reports its own count
    }

    private void cancelTimer(final PendingRequest request)
    {
        if (request.timer != PendingRequest.NO_TIMER)
        {
            lane.loop.cancelTimer(request.timer);
            request.timer = PendingRequest.NO_TIMER;
        }
    }

    /** Another lane of the session is up while this one is not: it takes the requests waiting here. */
    void handOver(final Lane target)
    {
        if (pending.isEmpty())
        {
            return;
        }
        final List<PendingRequest> requests = byId();
        pending.clear();
        waiting.clear();
        for (final PendingRequest request : requests)
        {
            cancelTimer(request);
            handOff(request, target);
        }
    }

    /**
     * The connection was lost: cancels awaiting an answer learn nothing was confirmed; requests go to
     * {@code other} when there is one, else wait for the reconnect (client; an idempotent one fails instead) or the
     * client's attach (a parked server lane), or fail (a server lane of a session that is closing).
     */
    void connectionLost(final Lane other, final Throwable cause)
    {
        cancels.dropAll(); // their answers went down with the connection
        waiting.clear();
        for (final PendingRequest request : byId())
        {
            if (other != null)
            {
                // Another connection of the session takes over: it retransmits there.
                pending.remove(request.id);
                cancelTimer(request);
                handOff(request, other);
            }
            else if (session.initiator() && request.idempotent)
            {
                // Its server may be gone for good (a killed process): waiting for the re-attach would spend the
                // call's deadline, while its caller could send it to another server now.
                pending.remove(request.id);
                cancelTimer(request);
                request.fail(new ConnectionException("the connection of session " + session.describe() +
                    " was lost with an idempotent call in flight, failed at once so that it may be sent again (" +
                    cause.getMessage() + ")", cause));
            }
            else if (session.initiator() || lane.isParked())
            {
                request.waited = true;
                waiting.add(request);
            }
            else
            {
                pending.remove(request.id);
                cancelTimer(request);
                request.fail(new ConnectionException("connection to the client of session " + session.describe() +
                    " was lost: " + cause.getMessage(), cause));
            }
        }
    }

    /** The lane closed: every request and cancel still here fails with {@code cause} (each its own instance). */
    void failAll(final Throwable cause)
    {
        final List<PendingRequest> requests = new ArrayList<>(pending.values());
        pending.clear();
        waiting.clear();
        for (final PendingRequest request : requests)
        {
            cancelTimer(request);
            request.fail(cause instanceof ConnectionException ? cause : // made the request's own by its fail
                new ConnectionException(cause.getMessage(), cause));
        }
        cancels.dropAll();
    }

    /** The pending requests in id order: retransmits keep the order the application sent them in. */
    private List<PendingRequest> byId()
    {
        final List<PendingRequest> requests = new ArrayList<>(pending.values());
        requests.sort(Comparator.comparingLong(r -> r.id));
        return requests;
    }
}
