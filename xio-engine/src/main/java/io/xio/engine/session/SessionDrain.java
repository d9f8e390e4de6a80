package io.xio.engine.session;

import io.xio.engine.GoAway;
import io.xio.engine.SessionDrainingException;
import io.xio.engine.SessionEvent;
import io.xio.engine.XioException;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.admission.StreamAdmission;
import io.xio.engine.session.call.Lane;
import io.xio.engine.session.call.LaneRing;
import io.xio.engine.session.call.LaneState;
import io.xio.engine.session.handshake.ServerHandshake;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One session's GOAWAY and drain. Client side: the server's GOAWAY (or the application's own drain) stops new
 * requests, fails those never written, and closes the session once nothing is in flight either way. Server side:
 * asks the client to go away, on one live connection and again on each that attaches later. Any thread; the GOAWAY is
 * volatile, and what touches a lane runs on that lane's context.
 */
public final class SessionDrain implements CallAdmission.Drain
{
    /** What the drain needs of its session. */
    interface Host
    {
        boolean isOpen();

        /** The session's id and address, for messages. */
        String describe();

        void fire(SessionEvent.Type type, String detail);

        /** Closes the session: a CLOSE to the peer. */
        void close();
    }

    private final boolean initiator;
    private final LaneRing lanes;
    private final CallAdmission admission;
    /** Open streams hold the session as calls in flight do. */
    private final StreamAdmission streams;
    private final AtomicInteger executing;
    private final Host host;
    /**
     * Client side: the last GOAWAY the server sent; server side: the last one sent to the client. Null until then;
     * from then on this side sends no new request ({@link #failure}).
     */
    private volatile GoAway goAway;
    /** Server side: the body of {@link #goAway}, sent again on each connection that attaches while draining. */
    private volatile byte[] goAwayBody;
    /** Client side: whether the close after the last answer of a drained session was started. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /**
     * Server side: whether the client announced it understands GOAWAY ({@code SetupCodec.FEATURE_GOAWAY}); one that
     * does not would take the frame for a violation and close, then re-open, in a loop: it is sent none.
     */
    private volatile boolean peerUnderstandsGoAway;

    /**
     * @param executing the peer's calls executing on this side: a drained client session waits for them too
     */
    SessionDrain(final boolean initiator, final LaneRing lanes, final CallAdmission admission,
        final AtomicInteger executing, final StreamAdmission streams, final Host host)
    {
        this.initiator = initiator;
        this.streams = streams;
        this.lanes = lanes;
        this.admission = admission;
        this.executing = executing;
        this.host = host;
    }

    /** Server side, at set-up: whether the client understands GOAWAY. */
    public void peerUnderstandsGoAway(final boolean understands)
    {
        peerUnderstandsGoAway = understands;
    }

    @Override
    public boolean isDraining()
    {
        return goAway != null;
    }

    /** Client side: the last GOAWAY the server sent, with its portals resolved; null when none came. */
    GoAway received()
    {
        return initiator ? goAway : null;
    }

    /**
     * Why a request of this side that was never written may not be sent now: the session goes away (a
     * {@link SessionDrainingException}, so the caller may send it elsewhere); null when it may.
     */
    @Override
    public SessionDrainingException failure()
    {
        final GoAway current = goAway;
        if (current == null)
        {
            return null;
        }
        return new SessionDrainingException("session " + host.describe() + (initiator ?
            " was asked to go away by the server" : " is draining") + (current.reason().isEmpty() ? "" : " (" +
            current.reason() + ")") + "; the call was not sent", current);
    }

    /** Client side: the server's GOAWAY arrived on a lane of {@code contacted}'s connection. On that lane's thread. */
    public void arrived(final GoAway received, final XioUri contacted)
    {
        if (!initiator || !host.isOpen())
        {
            return;
        }
        final List<XioUri> portals = new ArrayList<>(received.portals().size());
        received.portals().forEach(p -> portals.add(contacted == null ? p : p.reachedVia(contacted)));
        final GoAway resolved = new GoAway(portals, received.reason());
        final GoAway previous = goAway;
        goAway = resolved; // before the lanes look: whatever they take from now on is refused
        if (resolved.equals(previous))
        {
            return; // the same again, on another connection
        }
        host.fire(SessionEvent.Type.GOAWAY, "session " + host.describe() + " asked to go away by the server" +
            (resolved.reason().isEmpty() ? "" : ": " + resolved.reason()) +
            (portals.isEmpty() ? "" : "; re-open at " + portals));
        failUnsentEverywhere();
        closeIfDrained();
    }

    /**
     * Server side: asks the client to go away, on one live connection (on every one that attaches later, too, in
     * case that one is lost before the client reads it); from now on this side sends the client no new request.
     * Client side: drains the session here (the server is told nothing until the CLOSE).
     */
    void goAway(final GoAway value)
    {
        if (initiator)
        {
            // The client drains itself: as after a GOAWAY from the server, without telling it or the listeners.
            if (host.isOpen() && goAway == null)
            {
                goAway = value;
                failUnsentEverywhere();
                closeIfDrained();
            }
            return;
        }
        if (!host.isOpen())
        {
            return;
        }
        final byte[] body = new SetupCodec.Writer().goAway(new GoAway(value.portals(),
            ServerHandshake.bounded(value.reason()))).toBytes();
        goAwayBody = body;
        goAway = value;
        failUnsentEverywhere();
        send(body);
    }

    /**
     * Server side: {@code value} again, for a session accepted while the drain that sent it began (it may have had no
     * connection to go on then).
     */
    void goAwayAgain(final GoAway value)
    {
        final byte[] body = goAwayBody;
        if (body == null)
        {
            goAway(value);
        }
        else
        {
            send(body);
        }
    }

    private void send(final byte[] body)
    {
        final Lane lane = lanes.open(null);
        if (lane != null && peerUnderstandsGoAway)
        {
            executeOn(lane, () -> lane.sendGoAway(body));
        }
    }

    /**
     * Server side: the GOAWAY to send on a connection that attached while the session is draining; null when it is
     * not, or when the client does not understand GOAWAY.
     */
    public byte[] bodyForAttach()
    {
        return peerUnderstandsGoAway ? goAwayBody : null;
    }

    /** Requests of this side waiting on any lane and never written fail: they are not to go out any more. */
    private void failUnsentEverywhere()
    {
        for (final Lane lane : lanes.all())
        {
            executeOn(lane, lane.outbound::failUnsent);
        }
    }

    private static void executeOn(final Lane lane, final Runnable task)
    {
        if (lane.loop.inContextThread())
        {
            task.run();
        }
        else if (!lane.loop.isClosed())
        {
            try
            {
                lane.loop.execute(task);
            }
            catch (final XioException closing)
            {
                // that context stopped: its lanes' requests failed with it
            }
        }
    }

    /**
     * Client side, after a GOAWAY: once nothing this side sent is in flight and nothing the server sent executes
     * here, and no lane is re-establishing its connection, the session closes (a CLOSE to the server). A lane
     * coming back (or its context's others staying up meanwhile) lets the server retransmit its requests whose
     * answers were lost with the connection, answered again from this side's deduplication window: closing before
     * would fail them at the server, though they ran here. Called whenever one of those ends or a lane
     * comes up; any thread. The close runs on a context's queue, not inside the completion that got here.
     */
    @Override
    public void closeIfDrained()
    {
        if (!initiator || goAway == null || admission.inFlight() != 0 || executing.get() != 0 || streams.open() != 0 ||
            !host.isOpen() ||
            reestablishing() || !closing.compareAndSet(false, true))
        {
            return;
        }
        final Lane[] all = lanes.all();
        if (all.length == 0 || all[0].loop.isClosed())
        {
            host.close();
            return;
        }
        try
        {
            all[0].loop.execute(host::close);
        }
        catch (final XioException stopped)
        {
            host.close();
        }
    }

    /** Whether a lane is (re-)connecting: until it is back, or the session gives up on it and fails. */
    private boolean reestablishing()
    {
        for (final Lane lane : lanes.all())
        {
            final LaneState state = lane.state();
            if (state == LaneState.CONNECTING || state == LaneState.RECONNECTING)
            {
                return true;
            }
        }
        return false;
    }
}
