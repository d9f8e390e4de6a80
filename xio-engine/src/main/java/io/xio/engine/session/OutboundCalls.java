package io.xio.engine.session;

import io.xio.engine.ConnectionException;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
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
final class OutboundCalls
{
    private final Lane lane;
    private final SessionImpl session;
    private final Long2ObjectHashMap<PendingRequest> pending = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<XioFuture<?>> cancelling = new Long2ObjectHashMap<>();
    private final ArrayDeque<PendingRequest> waiting = new ArrayDeque<>();

    OutboundCalls(final Lane lane)
    {
        this.lane = lane;
        this.session = lane.session;
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

    /** The cancel of {@code id} was answered: its future learns whether the peer aborted it. */
    void cancelAnswered(final long id, final boolean aborted)
    {
        final XioFuture<?> future = cancelling.remove(id);
        if (future != null)
        {
            Futures.cancelAnswered(future, aborted);
        }
    }

    void submit(final PendingRequest request)
    {
        if (request.isFinished())
        {
            return;
        }
        if (lane.isClosed())
        {
            // The session closed, or this lane is gone: another lane may still carry it, or hold it for the client.
            if (!handOff(request, session.isOpen() ? session.waitingLane(lane) : null))
            {
                final Throwable why = session.closedBy();
                request.fail(session.isOpen() && !session.initiator ?
                    new ConnectionException("no connection to the client of session " + session.describe()) :
                    new ConnectionException("session " + session.describe() + " is closed" +
                        (why == null ? "" : ": " + why.getMessage()), why));
            }
            return;
        }
        if (request.future != null && request.future.isDone())
        {
            request.fail(new RequestCancelledException("request " + request.id + " was cancelled"));
            return;
        }
        if (!lane.isUp())
        {
            // Picked while up, down by now: another connection of the session takes it, if one is up; else it waits
            // here for the reconnect (client) or for the client to attach again (a parked server lane).
            if (handOff(request, session.openLane(lane)))
            {
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

    /** Moves {@code request} to {@code other}'s context; false when there is no other lane. */
    private static boolean handOff(final PendingRequest request, final Lane other)
    {
        if (other == null)
        {
            return false;
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
            session.retransmits.incrementAndGet();
        }
        final ByteBuffer output = request.message.output();
        final int offered = output == null || request.exposedLength >= 0 ? -1 :
            connection.exposeOutput(flags, session.id(), request.id, output);
        final int result = connection.sendMessage(FrameType.REQUEST, flags, session.id(), request.id, 0,
            request.message, request, request.wantsWriteCompletion());
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
            if (request.sentOnce)
            {
                sendCancel(request.id, request.id);
            }
            request.fail(new XioTimeoutException("request " + request.id + " on session " + session.describe() +
                " timed out; the peer was told to cancel it"));
        }
        else
        {
            final Throwable lastFailure = lane.lastFailure();
            request.fail(new ConnectionException("no connection to " + (session.initiator ? lane.target() :
                "the client of session " + session.describe()) + " for request " + request.id + " within its " +
                "deadline" + (lastFailure == null ? "" : ": " + lastFailure.getMessage()), lastFailure));
        }
    }

    /** The application cancelled {@code request}, which this lane holds. */
    void cancel(final PendingRequest request)
    {
        if (!pending.remove(request.id, request))
        {
            Futures.cancelAnswered(request.future, false);
            return;
        }
        cancelTimer(request);
        request.fail(new RequestCancelledException("request " + request.id + " was cancelled"));
        if (lane.isUp() && request.sentOnce)
        {
            cancelling.put(request.id, request.future);
            sendCancel(request.id, request.id);
        }
        else
        {
            Futures.cancelAnswered(request.future, !request.sentOnce);
        }
    }

    void cancelAll()
    {
        if (pending.isEmpty())
        {
            return;
        }
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        boolean anySent = false;
        for (final PendingRequest request : new ArrayList<>(pending.values()))
        {
            first = Math.min(first, request.id);
            last = Math.max(last, request.id);
            anySent |= request.sentOnce;
            pending.remove(request.id);
            cancelTimer(request);
            request.fail(new RequestCancelledException("request " + request.id + " was cancelled"));
        }
        if (lane.isUp() && anySent)
        {
            sendCancel(first, last);
        }
    }

    /** Asks the peer to abort our requests {@code first..last}. */
    void sendCancel(final long first, final long last)
    {
        if (lane.connection().sendControl(FrameType.CANCEL, session.mineFlag, session.id(), first, 0,
            new SetupCodec.Writer().i64(last).toBytes()))
        {
            lane.fence.cancelSent(); // answered once each, in order
        }
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
     * {@code other} when there is one, else wait for the reconnect (client) or the client's attach (a parked server
     * lane), or fail (a server lane of a session that is closing).
     */
    void connectionLost(final Lane other, final Throwable cause)
    {
        for (final XioFuture<?> future : cancelling.values())
        {
            Futures.cancelAnswered(future, false); // the answer went down with the connection
        }
        cancelling.clear();
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
            else if (session.initiator || lane.isParked())
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

    /** The lane closed: every request and cancel still here fails with {@code cause}. */
    void failAll(final Throwable cause)
    {
        final List<PendingRequest> requests = new ArrayList<>(pending.values());
        pending.clear();
        waiting.clear();
        for (final PendingRequest request : requests)
        {
            cancelTimer(request);
            request.fail(cause instanceof ConnectionException ? cause :
                new ConnectionException(cause.getMessage(), cause));
        }
        for (final XioFuture<?> future : cancelling.values())
        {
            Futures.cancelAnswered(future, false);
        }
        cancelling.clear();
    }

    /** The pending requests in id order: retransmits keep the order the application sent them in. */
    private List<PendingRequest> byId()
    {
        final List<PendingRequest> requests = new ArrayList<>(pending.values());
        requests.sort(Comparator.comparingLong(r -> r.id));
        return requests;
    }
}
