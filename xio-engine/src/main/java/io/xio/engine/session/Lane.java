package io.xio.engine.session;

import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.RemoteException;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.XioUri;
import io.xio.engine.context.EventLoop;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.protocol.Status;
import org.agrona.collections.Long2ObjectHashMap;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A session's presence on one context: the connection it uses there, the requests it sent and awaits, the
 * ones waiting for room or for a connection, and (client side) the reconnect loop. Owned by that context's
 * thread; other threads reach it only through the context's command queue.
 */
final class Lane
{
    private static final int MAX_REDIRECTS = 4;
    private static final Object RECEIPT = new Object();

    final SessionImpl session;
    final Peers peers;
    final EventLoop loop;
    private final int slot;
    private final Long2ObjectHashMap<PendingRequest> pending = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<io.xio.engine.XioFuture<?>> cancelling = new Long2ObjectHashMap<>();
    private final ArrayDeque<PendingRequest> waiting = new ArrayDeque<>();
    private final CallPool calls;
    private final Message responseView = Messages.released();
    /** Requests whose output buffer the peer may still write into, by id (see {@link PendingRequest#exposedLength}). */
    private final Long2ObjectHashMap<PendingRequest> exposed = new Long2ObjectHashMap<>();
    // The latest DATA_DESCRIPTOR, for the REQUEST that follows it; and how many CANCELs arrived, which revokes
    // the regions offered before them.
    private long descriptorId;
    private long descriptorAddress;
    private int descriptorKey;
    private int descriptorLength;
    private long cancelsSeen;
    // CANCELs sent on the current connection and their answers, which come back one each, in order: the k-th
    // answer says the peer revoked every output offered before the k-th CANCEL.
    private long cancelsSent;
    private long cancelsAnswered;
    private Connection connection;
    private volatile boolean up;
    private boolean closed;
    private XioUri target;
    private long lostAt;
    private int attempts;
    private Throwable lastFailure;

    /**
     * @param slot which of the context's connections to the peer this lane uses: 0 unless a session has more
     *             connections than the engine has contexts, since one connection carries one lane per session
     */
    Lane(final SessionImpl session, final Peers peers, final int slot)
    {
        this.session = session;
        this.peers = peers;
        this.loop = peers.loop;
        this.slot = slot;
        this.calls = session.reuseCalls ? new CallPool(this, session.engine.limits.maxInFlight()) : null;
    }

    /**
     * The lane's idle calls, for a service that reuses them ({@link io.xio.engine.RequestReuse#AFTER_ANSWER}).
     * Taken on the lane's thread; given back from whichever thread let go of a call last.
     */
    static final class CallPool
    {
        private final Lane lane;
        private final org.agrona.concurrent.ManyToOneConcurrentArrayQueue<ServerCall> idle;

        CallPool(final Lane lane, final int maxInFlight)
        {
            this.lane = lane;
            this.idle = new org.agrona.concurrent.ManyToOneConcurrentArrayQueue<>(Math.max(2, Math.min(maxInFlight, 4096)));
        }

        ServerCall take(final long id, final int flags)
        {
            final ServerCall call = idle.poll();
            if (call == null)
            {
                return new ServerCall(lane, this).beginAs(id, flags);
            }
            return call.beginAs(id, flags);
        }

        void recycle(final ServerCall call)
        {
            idle.offer(call); // when full, the call is left to the garbage collector
        }
    }

    /** The remote address of the current connection, for monitoring from any thread (may be stale). */
    String remoteAddress()
    {
        final Connection current = connection;
        return current == null ? null : current.remoteAddress();
    }

    boolean isUp()
    {
        return up;
    }

    // ---- connection life (client side: set-up, attach, reconnect) ----

    void setup(final XioUri address, final int hops, final List<XioUri> alternatives)
    {
        final byte[] body = new SetupCodec.Writer().u8(hops).string(session.resource)
            .map(session.sentAttributes()).i32(session.engine.limits.maxInFlight())
            .i32(session.engine.limits.dedupWindow()).toBytes();
        if (body.length > session.engine.limits.maxHeaderBytes())
        {
            session.refused(new IllegalArgumentException("set-up attributes of " + body.length + " bytes exceed " +
                "the " + session.engine.limits.maxHeaderBytes() + "-byte header limit"));
            return;
        }
        peers.connect(address, slot, c ->
        {
            if (closed)
            {
                c.releaseIfUnused();
                return;
            }
            // The connect has its own timeout; this one bounds the server's answer.
            final long[] timer = new long[1];
            final long token = c.call(new Connection.Call()
            {
                @Override
                public void onAnswer(final Connection connection, final Frame frame)
                {
                    loop.cancelTimer(timer[0]);
                    try
                    {
                        onSetupAnswer(connection, frame, address, hops);
                    }
                    catch (final RuntimeException ex)
                    {
                        session.refused(ex);
                        throw ex;
                    }
                }

                @Override
                public void onFailed(final Connection connection, final Throwable cause)
                {
                    loop.cancelTimer(timer[0]);
                    retrySetup(cause, hops, alternatives);
                }
            });
            timer[0] = loop.schedule(loop.nanoTime() + session.engine.connectTimeout.toNanos(), () ->
            {
                c.forget(token);
                c.releaseIfUnused();
                retrySetup(new ConnectionException("no answer to the session set-up from " + address.endpoint() +
                    " within " + session.engine.connectTimeout), hops, alternatives);
            });
            c.sendControl(FrameType.SETUP, 0, 0, token, 0, body);
        }, cause -> retrySetup(cause, hops, alternatives));
    }

    private void retrySetup(final Throwable cause, final int hops, final List<XioUri> alternatives)
    {
        if (!alternatives.isEmpty() && !closed)
        {
            setup(alternatives.get(0), hops, alternatives.subList(1, alternatives.size()));
        }
        else
        {
            session.refused(cause);
        }
    }

    private void onSetupAnswer(final Connection c, final Frame frame, final XioUri address, final int hops)
    {
        final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength());
        switch (frame.type())
        {
            case FrameType.SETUP_ACCEPT ->
            {
                final var attributes = body.map();
                final int peerMaxInFlight = body.i32();
                final int peerDedupWindow = body.i32();
                target = address.endpoint();
                session.assignId(frame.sessionId());
                session.limitTo(peerMaxInFlight, peerDedupWindow);
                attach(c);
                session.established(attributes, target);
            }
            case FrameType.SETUP_REJECT ->
            {
                final String reason = body.string();
                c.releaseIfUnused();
                session.refused(new SessionRejectedException(address.withResource(session.resource).toString(),
                    reason));
            }
            case FrameType.SETUP_REDIRECT ->
            {
                final List<XioUri> portals = new ArrayList<>();
                for (final String uri : body.strings())
                {
                    try
                    {
                        portals.add(XioUri.parse(uri).reachedVia(address));
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new ProtocolViolationException("SETUP_REDIRECT to an unusable portal: " +
                            ex.getMessage());
                    }
                }
                if (portals.isEmpty())
                {
                    throw new ProtocolViolationException("SETUP_REDIRECT without portals");
                }
                c.releaseIfUnused();
                if (hops + 1 > MAX_REDIRECTS)
                {
                    session.refused(new ConnectionException("session to " + session.uri + " was redirected more " +
                        "than " + MAX_REDIRECTS + " times (last to " + portals + ")"));
                    return;
                }
                setup(portals.get(0), hops + 1, portals.subList(1, portals.size()));
            }
            default -> throw new ProtocolViolationException("unexpected " + FrameType.name(frame.type()) +
                " in answer to a set-up");
        }
    }

    /** First connection of a lane other than the first: attach to the session; {@code done} either way. */
    void connectFirst(final XioUri address, final Runnable done)
    {
        target = address;
        attachTo(done, cause ->
        {
            lastFailure = cause;
            done.run();
            scheduleReconnect(cause);
        });
    }

    private void attachTo(final Runnable onAttached, final java.util.function.Consumer<Throwable> onFailed)
    {
        peers.connect(target, slot, c ->
        {
            if (closed)
            {
                c.releaseIfUnused();
                return;
            }
            final long token = c.call(new Connection.Call()
            {
                @Override
                public void onAnswer(final Connection connection, final Frame frame)
                {
                    if (frame.type() == FrameType.ATTACH_ACCEPT)
                    {
                        attach(connection);
                        onAttached.run();
                    }
                    else if (frame.type() == FrameType.ATTACH_REJECT)
                    {
                        final String reason = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
                            frame.headerLength()).string();
                        connection.releaseIfUnused();
                        session.fail(new ConnectionException("lost session " + session.describe() + ": " + reason));
                    }
                    else
                    {
                        throw new ProtocolViolationException("unexpected " + FrameType.name(frame.type()) +
                            " in answer to an attach");
                    }
                }

                @Override
                public void onFailed(final Connection connection, final Throwable cause)
                {
                    onFailed.accept(cause);
                }
            });
            c.sendControl(FrameType.ATTACH, 0, session.id(), token, 0, Connection.NO_BODY);
        }, onFailed);
    }

    private void scheduleReconnect(final Throwable cause)
    {
        if (closed || !session.initiator)
        {
            return;
        }
        final long now = loop.nanoTime();
        if (lostAt == 0)
        {
            lostAt = now;
        }
        if (now - lostAt > session.engine.reconnectTimeout.toNanos())
        {
            session.fail(new ConnectionException("lost the connection to " + target + " and could not " +
                "re-establish it within " + session.engine.reconnectTimeout + ": " + cause.getMessage(), cause));
            return;
        }
        final long delay = Math.min(1_000_000_000L, 5_000_000L << Math.min(attempts, 8));
        attempts++;
        loop.schedule(now + delay, () ->
        {
            if (!closed && !up)
            {
                attachTo(() -> session.fire(SessionEvent.Type.RECONNECTED, "session " + session.describe() +
                    " reconnected to " + target, null), this::scheduleReconnect);
            }
        });
    }

    void attach(final Connection c)
    {
        connection = c;
        descriptorId = 0;
        cancelsSeen = 0;
        cancelsSent = 0;
        cancelsAnswered = 0;
        c.addLane(session.id(), this);
        up = true;
        lostAt = 0;
        attempts = 0;
        drainWaiting();
        if (session.initiator)
        {
            session.laneUp(this);
        }
    }

    /** Another lane of the session is up: give it the requests waiting here for a connection. */
    void handOver(final Lane target)
    {
        if (up || closed || pending.isEmpty())
        {
            return;
        }
        final List<PendingRequest> requests = new ArrayList<>(pending.values());
        requests.sort(Comparator.comparingLong(r -> r.id));
        pending.clear();
        waiting.clear();
        for (final PendingRequest request : requests)
        {
            cancelTimer(request);
            request.lane = target;
            target.loop.execute(request);
        }
    }

    void onConnectionLost(final Connection c, final Throwable cause)
    {
        if (connection != c)
        {
            return;
        }
        connection = null;
        up = false;
        fenceAll(); // the connection's end: the peer can no longer write into our output buffers
        for (final var future : cancelling.values())
        {
            Futures.cancelAnswered(future, false); // the answer went down with the connection
        }
        cancelling.clear();
        if (closed)
        {
            c.removeLane(session.id(), this); // was kept for the fence of offered outputs
            return;
        }
        lastFailure = cause;
        final Lane other = session.openLane(this);
        final List<PendingRequest> requests = new ArrayList<>(pending.values());
        requests.sort(Comparator.comparingLong(r -> r.id));
        waiting.clear();
        for (final PendingRequest request : requests)
        {
            if (other != null)
            {
                // Another connection of the session takes over: retransmit there (S4).
                pending.remove(request.id);
                cancelTimer(request);
                request.lane = other;
                other.loop.execute(request);
            }
            else if (session.initiator)
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
        if (session.initiator)
        {
            session.fire(SessionEvent.Type.RECONNECTING, "connection of session " + session.describe() + " to " +
                target + " lost; reconnecting", cause);
            scheduleReconnect(cause);
        }
        else
        {
            session.fire(SessionEvent.Type.ERROR, "connection of session " + session.describe() + " from " +
                c.remoteAddress() + " lost", cause);
            session.removeServerLane(this);
        }
    }

    void abort()
    {
        if (connection != null)
        {
            connection.close(new ConnectionException("connection to " + connection.remoteAddress() +
                " aborted by the application"));
        }
    }

    void close(final Throwable cause, final boolean tellPeer)
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final Connection c = connection;
        final boolean fenceFirst = c != null && up && !exposed.isEmpty();
        if (fenceFirst)
        {
            // The peer may still write into outputs it was offered: ask it to cancel them (its answer is the fence)
            // and keep hearing this session's frames on the connection until that answer or the connection's end.
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (final PendingRequest request : exposed.values())
            {
                first = Math.min(first, request.id);
                last = Math.max(last, request.id);
            }
            sendCancel(first, last);
        }
        if (c != null)
        {
            if (tellPeer)
            {
                c.sendControl(FrameType.CLOSE, 0, session.id(), 0, 0,
                    new SetupCodec.Writer().string("closed by the application").toBytes());
            }
            up = false;
            if (!fenceFirst)
            {
                connection = null;
                c.removeLane(session.id(), this);
            }
        }
        failAll(cause);
    }

    private void failAll(final Throwable cause)
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
        for (final var future : cancelling.values())
        {
            Futures.cancelAnswered(future, false);
        }
        cancelling.clear();
    }

    // ---- this side's requests ----

    void submit(final PendingRequest request)
    {
        if (request.isFinished())
        {
            return;
        }
        if (closed)
        {
            // The session closed, or this lane is gone: another lane may still carry it.
            final Lane other = session.isOpen() ? session.openLane(this) : null;
            if (other != null)
            {
                request.lane = other;
                other.loop.execute(request);
            }
            else
            {
                request.fail(new ConnectionException("session " + session.describe() + " is closed"));
            }
            return;
        }
        if (request.future != null && request.future.isDone())
        {
            request.fail(new RequestCancelledException("request " + request.id + " was cancelled"));
            return;
        }
        if (!up)
        {
            // Picked while up, down by now: another connection of the session takes it, if one is up.
            final Lane other = session.openLane(this);
            if (other != null)
            {
                request.lane = other;
                other.loop.execute(request);
                return;
            }
            if (!session.initiator)
            {
                request.fail(new ConnectionException("no connection to the client of session " +
                    session.describe()));
                return;
            }
        }
        pending.put(request.id, request);
        if (request.timer == PendingRequest.NO_TIMER)
        {
            request.timer = loop.schedule(request.deadline, request.expire);
        }
        if (up && waiting.isEmpty() && connection.writable() && write(request))
        {
            return;
        }
        request.waited = true;
        waiting.add(request);
    }

    private boolean write(final PendingRequest request)
    {
        final int flags = request.flags | (request.sentOnce ? FrameFlags.RETRANSMIT : 0);
        if (request.sentOnce)
        {
            loop.counters().retransmitted();
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
            request.outputExposed(offered, output.position(), cancelsSent);
            exposed.put(request.id, request);
        }
        if (result == FrameEncoder.QUEUED)
        {
            request.queuedInLink();
        }
        request.sentOnce = true;
        return true;
    }

    void drainWaiting()
    {
        while (up && !waiting.isEmpty() && connection.writable())
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

    void expire(final PendingRequest request)
    {
        if (!pending.remove(request.id, request))
        {
            return;
        }
        if (up)
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
            request.fail(new ConnectionException("no connection to " + target + " for request " + request.id +
                " within its deadline" + (lastFailure == null ? "" : ": " + lastFailure.getMessage()), lastFailure));
        }
    }

    /** The application cancelled: hop to whichever lane holds the request now. Any thread. */
    void cancelLater(final PendingRequest request)
    {
        if (loop.isClosed())
        {
            Futures.cancelAnswered(request.future, false);
            return;
        }
        loop.execute(() ->
        {
            final Lane holder = request.lane;
            if (holder != this)
            {
                holder.cancelLater(request);
            }
            else
            {
                cancel(request);
            }
        });
    }

    private void cancel(final PendingRequest request)
    {
        if (!pending.remove(request.id, request))
        {
            Futures.cancelAnswered(request.future, false);
            return;
        }
        cancelTimer(request);
        request.fail(new RequestCancelledException("request " + request.id + " was cancelled"));
        if (up && request.sentOnce)
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
        if (up && anySent)
        {
            sendCancel(first, last);
        }
    }

    /** Asks the peer to abort our requests {@code first..last}. */
    private void sendCancel(final long first, final long last)
    {
        if (connection.sendControl(FrameType.CANCEL, session.mineFlag, session.id(), first, 0,
            new SetupCodec.Writer().i64(last).toBytes()))
        {
            cancelsSent++; // answered once each, in order: see fenceCancelAnswered
        }
    }

    private void cancelTimer(final PendingRequest request)
    {
        if (request.timer != PendingRequest.NO_TIMER)
        {
            loop.cancelTimer(request.timer);
            request.timer = PendingRequest.NO_TIMER;
        }
    }

    // ---- inbound frames ----

    void onFrame(final int type, final Frame frame, final Slab slab)
    {
        final boolean peersIdSpace = (frame.flags() & FrameFlags.FROM_ACCEPTOR) != session.mineFlag;
        final boolean request = type == FrameType.REQUEST || type == FrameType.CANCEL ||
            type == FrameType.DATA_DESCRIPTOR;
        if (request != peersIdSpace)
        {
            throw new ProtocolViolationException(FrameType.name(type) + " with a request id of the wrong side " +
                "(flags " + frame.flags() + ") on session " + session.id());
        }
        if (closed)
        {
            afterClose(type, frame); // kept registered only to hear the fences of offered outputs
            return;
        }
        switch (type)
        {
            case FrameType.DATA_DESCRIPTOR -> onDataDescriptor(frame);
            case FrameType.REQUEST -> onRequest(frame, slab);
            case FrameType.RESPONSE -> onResponse(frame, slab);
            case FrameType.RECEIPT -> onReceipt(frame);
            case FrameType.CANCEL -> onCancel(frame);
            case FrameType.CANCEL_RESULT -> onCancelResult(frame);
            default -> throw new IllegalStateException("not a lane frame: " + type);
        }
    }

    private void onResponse(final Frame frame, final Slab slab)
    {
        final long id = frame.requestId();
        final boolean written = (frame.flags() & FrameFlags.DATA_WRITTEN) != 0;
        final PendingRequest offered = exposed.isEmpty() ? null : exposed.remove(id);
        int writtenAt = 0;
        if (offered != null || written)
        {
            writtenAt = fence(offered, frame, written);
        }
        final PendingRequest request = pending.get(id);
        if (request == null && (session.laneCount() < 2 || written))
        {
            return; // answered already (a duplicate after failover), cancelled or timed out
        }
        final int status = frame.status();
        final Message message;
        if (status != Status.OK)
        {
            message = null;
        }
        else if (request != null && request.listener != null && request.deliversNow() && responseView.isReleased())
        {
            // The listener reads it during its call and xio closes it after: lend the lane's view, no allocation.
            message = Messages.rewrap(responseView, slab, frame, null, null);
        }
        else
        {
            message = Messages.of(slab, frame, session.engine.leaks);
        }
        if (written)
        {
            Messages.placeIn(message, request.message.output(), writtenAt);
        }
        final Object outcome = message != null ? message : remoteFailure(frame, status);
        if (request != null)
        {
            settle(request, outcome);
        }
        else
        {
            // After a failover the peer may answer on another connection than the one holding the request.
            forward(id, outcome, session.laneCount() - 1);
        }
    }

    /** An answer that arrived on another lane of the session; passed around the lanes until one holds it. */
    private void claim(final long id, final Object outcome, final int hopsLeft)
    {
        final PendingRequest request = pending.get(id);
        if (request != null)
        {
            settle(request, outcome);
        }
        else if (hopsLeft > 0)
        {
            forward(id, outcome, hopsLeft - 1);
        }
        else if (outcome instanceof Message message)
        {
            message.close(); // nobody waits for it: a duplicate
        }
    }

    private void forward(final long id, final Object outcome, final int hopsLeft)
    {
        final Lane next = session.laneAfter(this);
        if (next == null || next.loop.isClosed())
        {
            if (outcome instanceof Message message)
            {
                message.close();
            }
            return;
        }
        next.loop.execute(() -> next.claim(id, outcome, hopsLeft));
    }

    private void settle(final PendingRequest request, final Object outcome)
    {
        if (outcome == RECEIPT)
        {
            if (request.oneWay)
            {
                pending.remove(request.id);
                cancelTimer(request);
                Futures.receiptArrived(request.future);
                request.complete(null);
            }
            else if (request.future != null)
            {
                Futures.receiptArrived(request.future);
            }
            return;
        }
        pending.remove(request.id);
        cancelTimer(request);
        if (outcome instanceof Message message)
        {
            final ByteBuffer output = request.message.output();
            if (output != null && !message.inOutput())
            {
                copyIntoOutput(message, output);
            }
            if (request.future != null)
            {
                Futures.receiptArrived(request.future);
            }
            request.complete(message);
        }
        else
        {
            request.fail((Throwable)outcome);
        }
    }

    /**
     * A response for {@code id} arrived: the peer writes no more into the output it was offered for it (its
     * data, if written, is in place). Checks a written response against the offer; returns where its data
     * starts in the output buffer.
     */
    private int fence(final PendingRequest offered, final Frame frame, final boolean written)
    {
        if (written)
        {
            long total = 0;
            for (int i = 0; i < frame.segmentCount(); i++)
            {
                total += frame.segmentLength(i);
            }
            if (offered == null || frame.status() != Status.OK || total > offered.exposedLength)
            {
                throw new ProtocolViolationException("RESPONSE " + frame.requestId() + " wrote " + total +
                    " bytes into an output region " + (offered == null ? "never offered" : "of " +
                    offered.exposedLength + " bytes"));
            }
        }
        final int at = offered == null ? 0 : offered.exposedAt;
        if (offered != null)
        {
            offered.outputFenced();
        }
        return at;
    }

    /** The peer answered one more of our CANCELs: it writes into no output offered before that CANCEL. */
    private void fenceCancelAnswered()
    {
        final long answered = ++cancelsAnswered;
        if (exposed.isEmpty())
        {
            return;
        }
        final List<PendingRequest> done = new ArrayList<>();
        for (final PendingRequest request : exposed.values())
        {
            if (request.exposedEpoch < answered)
            {
                done.add(request);
            }
        }
        for (final PendingRequest request : done)
        {
            exposed.remove(request.id);
            request.outputFenced();
        }
    }

    private void fenceAll()
    {
        if (exposed.isEmpty())
        {
            return;
        }
        final List<PendingRequest> all = new ArrayList<>(exposed.values());
        exposed.clear();
        all.forEach(PendingRequest::outputFenced);
    }

    /** A closed lane still registered on its connection: only fences matter now. */
    private void afterClose(final int type, final Frame frame)
    {
        if (type == FrameType.RESPONSE)
        {
            final PendingRequest offered = exposed.remove(frame.requestId());
            if (offered != null)
            {
                offered.outputFenced();
            }
        }
        else if (type == FrameType.CANCEL_RESULT)
        {
            fenceCancelAnswered();
        }
        else if (type == FrameType.CANCEL)
        {
            // Nothing of a closed session runs any more; the peer may be waiting for this answer as its fence.
            cancelsSeen++;
            connection.sendCancelResult(frame, 0);
        }
        final Connection c = connection;
        if (exposed.isEmpty() && c != null)
        {
            connection = null;
            c.removeLane(session.id(), this);
        }
    }

    /** Response data that arrived in the frame goes into the request's output buffer, when it fits there. */
    private static void copyIntoOutput(final Message message, final ByteBuffer output)
    {
        long total = 0;
        for (int i = 0; i < message.segmentCount(); i++)
        {
            total += message.segmentLength(i);
        }
        if (total > output.remaining())
        {
            return; // stays in the receive buffer: the message says so with inOutput()
        }
        int at = output.position();
        for (int i = 0; i < message.segmentCount(); i++)
        {
            final int length = message.segmentLength(i);
            message.buffer().getBytes(message.segmentOffset(i), output, at, length);
            at += length;
        }
        Messages.placeIn(message, output, output.position());
    }

    private RemoteException remoteFailure(final Frame frame, final int status)
    {
        String type = null;
        String text = null;
        if (status == Status.APPLICATION_ERROR)
        {
            final byte[] bytes = new byte[frame.headerLength()];
            frame.buffer().getBytes(frame.headerOffset(), bytes);
            final String body = new String(bytes, StandardCharsets.UTF_8);
            final int newline = body.indexOf('\n');
            type = newline < 0 ? body : body.substring(0, newline);
            text = newline < 0 ? "" : body.substring(newline + 1);
        }
        return new RemoteException(session.uri.withResource(session.resource).toString(), status, type, text);
    }

    private void onReceipt(final Frame frame)
    {
        final PendingRequest request = pending.get(frame.requestId());
        if (request != null)
        {
            settle(request, RECEIPT);
        }
        else if (session.laneCount() > 1)
        {
            forward(frame.requestId(), RECEIPT, session.laneCount() - 1);
        }
    }

    private void onCancelResult(final Frame frame)
    {
        final SetupCodec.Reader body = new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength());
        body.i64();
        final int aborted = body.i32();
        fenceCancelAnswered();
        final var future = cancelling.remove(frame.requestId());
        if (future != null)
        {
            Futures.cancelAnswered(future, aborted > 0);
        }
    }

    /** Request ids count up from 1 and stay far below 2^62, the dedup window's range. */
    private static long checkedId(final long id)
    {
        if (id < 1 || id > DedupWindow.MAX_ID)
        {
            throw new ProtocolViolationException("request id " + id + " outside 1.." + DedupWindow.MAX_ID);
        }
        return id;
    }

    private void onDataDescriptor(final Frame frame)
    {
        final long id = checkedId(frame.requestId());
        if (frame.headerLength() != FrameEncoder.DESCRIPTOR_BODY || frame.segmentCount() != 0)
        {
            throw new ProtocolViolationException("DATA_DESCRIPTOR with a " + frame.headerLength() + "-byte body and " +
                frame.segmentCount() + " segments (expected " + FrameEncoder.DESCRIPTOR_BODY + " bytes, none)");
        }
        final int at = frame.headerOffset();
        final int length = frame.buffer().getInt(at + 12, Frame.ORDER);
        if (length < 0)
        {
            throw new ProtocolViolationException("DATA_DESCRIPTOR offers a region of " + length + " bytes");
        }
        descriptorId = id;
        descriptorAddress = frame.buffer().getLong(at, Frame.ORDER);
        descriptorKey = frame.buffer().getInt(at + 8, Frame.ORDER);
        descriptorLength = length;
    }

    private void onRequest(final Frame frame, final Slab slab)
    {
        final long id = checkedId(frame.requestId());
        final int flags = frame.flags();
        final boolean oneWay = (flags & FrameFlags.ONE_WAY) != 0;
        final boolean receipt = (flags & FrameFlags.RECEIPT_REQUESTED) != 0;
        final ServerCall call = calls != null ? calls.take(id, flags) : new ServerCall(this, id, flags);
        if (descriptorId == id && !oneWay)
        {
            call.outputOn = connection;
            call.outputAddress = descriptorAddress;
            call.outputKey = descriptorKey;
            call.outputLength = descriptorLength;
            call.outputEpoch = cancelsSeen;
        }
        descriptorId = 0;
        switch (session.window.begin(id, call))
        {
            case NEW ->
            {
                call.claimed();
                if (session.executing.incrementAndGet() > session.engine.limits.maxInFlight())
                {
                    if (call.abandon())
                    {
                        session.executing.decrementAndGet();
                        session.window.abandon(id);
                        call.unused();
                    }
                    session.rejected();
                    answerStatus(id, flags, Status.BACK_PRESSURE);
                    return;
                }
                session.requestsReceived.incrementAndGet();
                if (receipt)
                {
                    sendReceipt(id, flags);
                }
                call.wrap(slab, frame, session.engine.leaks);
                dispatch(call, oneWay);
            }
            case EXECUTING ->
            {
                call.unused();
                if (receipt)
                {
                    sendReceipt(id, flags);
                }
                // The original connection may look alive here yet be dead: answer where the retransmit came
                // from. Re-check afterwards, since the answer may have been routed meanwhile.
                final Object running = session.window.awaitCall(id);
                if (running instanceof ServerCall executing)
                {
                    executing.replyVia(this, id);
                }
                if (!oneWay && session.window.isDone(id))
                {
                    resend(id, flags);
                }
            }
            case DONE ->
            {
                call.unused();
                if (receipt)
                {
                    sendReceipt(id, flags);
                }
                if (!oneWay)
                {
                    resend(id, flags);
                }
            }
            case TOO_OLD ->
            {
                call.unused();
                answerStatus(id, flags, Status.OUTSIDE_WINDOW);
            }
            case FULL ->
            {
                call.unused();
                session.rejected();
                answerStatus(id, flags, Status.BACK_PRESSURE);
            }
        }
    }

    private void dispatch(final ServerCall call, final boolean oneWay)
    {
        try
        {
            if (session.handler == null)
            {
                call.message.close();
                call.refuse(Status.NO_HANDLER);
                return;
            }
            try
            {
                session.handler.onRequest(call);
            }
            catch (final Throwable ex)
            {
                call.message.close(); // a handler that threw is not going to release it
                if (oneWay)
                {
                    org.slf4j.LoggerFactory.getLogger(Lane.class).warn("handler of {} failed on one-way message {}",
                        session.describe(), call.id, ex);
                }
                else
                {
                    try
                    {
                        call.fail(ex); // sends nothing when cancelled, but counts as the answer a reused call awaits
                    }
                    catch (final IllegalStateException alreadyAnswered)
                    {
                        // it threw after answering: the answer stands
                    }
                }
            }
            if (oneWay)
            {
                call.delivered();
            }
        }
        finally
        {
            call.release(); // the handler's hold
        }
    }

    /** A refusal: requests and one-way messages that asked for a receipt hear of it; fire-and-forget does not. */
    private void answerStatus(final long id, final int flags, final int status)
    {
        final boolean silent = (flags & FrameFlags.ONE_WAY) != 0 && (flags & FrameFlags.RECEIPT_REQUESTED) == 0;
        if (!silent && up)
        {
            connection.sendMessage(FrameType.RESPONSE, flags & FrameFlags.FROM_ACCEPTOR, session.id(), id, status,
                Outbound.empty(), null, false);
        }
    }

    private void sendReceipt(final long id, final int flags)
    {
        connection.sendControl(FrameType.RECEIPT, flags & FrameFlags.FROM_ACCEPTOR, session.id(), id, 0,
            Connection.NO_BODY);
    }

    private void resend(final long id, final int flags)
    {
        final DedupWindow.Retained kept = session.window.retained(id);
        if (kept == null)
        {
            answerStatus(id, flags, Status.RESPONSE_LOST);
            return;
        }
        final ByteBuffer all = ByteBuffer.wrap(kept.bytes());
        final ByteBuffer[] segments = new ByteBuffer[kept.segmentLengths().length];
        int at = kept.headerLength();
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = all.slice(at, kept.segmentLengths()[i]);
            at += kept.segmentLengths()[i];
        }
        connection.sendMessage(FrameType.RESPONSE, flags & FrameFlags.FROM_ACCEPTOR, session.id(), id,
            kept.status(), Outbound.of(all.slice(0, kept.headerLength()), segments), null, false);
    }

    private void onCancel(final Frame frame)
    {
        cancelsSeen++; // an answer not sent yet must not write into a cancelled call's output any more
        final long first = checkedId(frame.requestId());
        final long last = checkedId(new SetupCodec.Reader(frame.buffer(), frame.headerOffset(),
            frame.headerLength()).i64());
        if (last < first)
        {
            throw new ProtocolViolationException("CANCEL range " + first + ".." + last + " is empty");
        }
        // Bounded by the window: ids outside it are not executing here.
        final long span = Math.min(last - first, session.engine.limits.dedupWindow() - 1);
        int aborted = 0;
        for (long i = 0; i <= span; i++)
        {
            final Object call = session.window.call(first + i);
            if (call instanceof ServerCall serverCall && serverCall.cancel(first + i))
            {
                aborted++;
            }
        }
        connection.sendCancelResult(frame, aborted);
    }

    /** Sends a call's response here, or on another lane of the session when this one is down. */
    void sendResponse(final ServerCall call, final int status, final Outbound response)
    {
        if (!up)
        {
            final Lane other = session.openLane(this);
            if (other == null)
            {
                response.released(); // kept in the window (when small) for the retransmit to come
                call.release();
                return;
            }
            if (other.loop == loop)
            {
                other.sendResponse(call, status, response);
            }
            else
            {
                call.sendOn(other, status, response);
            }
            return;
        }
        // The call is the completion: it releases the response once the link is done with its buffers.
        final boolean completion = response.hasReleaseAfterSend();
        if (completion)
        {
            call.sending(response);
        }
        int result = FrameEncoder.NOT_WRITABLE;
        if (call.lane == this && call.outputOn == connection && call.outputEpoch == cancelsSeen && status == Status.OK)
        {
            result = connection.sendInto(call.flags & FrameFlags.FROM_ACCEPTOR, session.id(), call.id, status,
                response, call.outputAddress, call.outputKey, call.outputLength, completion ? call : null);
        }
        if (result == FrameEncoder.NOT_WRITABLE)
        {
            result = connection.sendMessage(FrameType.RESPONSE, call.flags & FrameFlags.FROM_ACCEPTOR,
                session.id(), call.id, status, response, completion ? call : null, true);
        }
        if (result == FrameEncoder.NO_ROOM)
        {
            response.released();
            call.release();
        }
        else if (!completion)
        {
            call.release();
        }
    }
}
