package io.xio.engine.session.handshake;

import io.xio.engine.ConnectionException;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioException;
import io.xio.engine.XioUri;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.call.Lane;
import io.xio.engine.session.call.LaneHost;
import io.xio.engine.session.connection.Connection;
import io.xio.engine.support.Backoff;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The client side of a lane's connection life: the session set-up (following redirects and trying the
 * alternatives a redirect named), the attach of further connections, and reconnecting after a loss with
 * jittered exponential backoff until the engine's reconnect timeout. Its server counterpart is
 * {@link ServerHandshake}.
 * Owned by the lane's context thread.
 */
public final class ClientHandshake implements Lane.Handshake
{
    private static final Logger LOG = LoggerFactory.getLogger(ClientHandshake.class);
    private static final int MAX_REDIRECTS = 4;
    /** 5 ms doubling to 1 s, each wait drawn from the upper half of its step. */
    public static final Backoff RECONNECT = new Backoff(5_000_000L, 1_000_000_000L);

    /** What the set-up of a client session needs of it: where it goes, with what, and where the outcome goes. */
    public interface Host extends LaneHost
    {
        XioUri uri();

        String resource();

        /** What the session was opened with: its TLS, its credentials and their redirect rule. */
        io.xio.engine.SessionOptions options();

        /** The attributes its SETUP carries. */
        java.util.Map<String, String> sentAttributes();

        /** The secret that proves a connection belongs to the session, once set up. */
        byte[] secret();

        /**
         * The server accepted: the session takes its id, its secret, the smaller of both sides' limits and what the
         * server understands ({@code features}, SetupCodec's bits).
         */
        void accepted(long sessionId, byte[] secret, CallAdmission.Announced sizes, int peerMaxInFlight,
            int peerDedupWindow, int features);

        /** The session's first lane is up at {@code target}: the further ones attach, then it is open. */
        void established(java.util.Map<String, String> attributes, XioUri target, List<XioUri> connectionPortals);

        /** The set-up failed for good: the session is closed and its opener told. */
        void refused(Throwable cause);

        /** The session is lost (it could not re-establish a connection). */
        void fail(Throwable cause);

        /** How long a connect or set-up may take. */
        java.time.Duration connectTimeout();

        /** A random draw for the backoff between reconnects. */
        long reconnectJitter();
    }

    private final Lane lane;
    private final Host session;
    private XioUri target;
    private boolean lost;
    private long lostAt;
    private int attempts;

    public ClientHandshake(final Lane lane, final Host session)
    {
        this.lane = lane;
        this.session = session;
    }

    /** Where this lane connects (the endpoint that accepted the session); null before the set-up succeeded. */
    @Override
    public XioUri target()
    {
        return target;
    }

    /** The lane is up: the next loss starts its backoff afresh. */
    @Override
    public void connected()
    {
        lost = false;
        attempts = 0;
    }

    /** Sets the session up at {@code address}, trying {@code alternatives} in turn when it cannot. */
    @Override
    public void setup(final XioUri address, final int hops, final List<XioUri> alternatives)
    {
        final byte[] body;
        try
        {
            final io.xio.engine.Credentials credentials = credentials();
            final String weakened = hops == 0 || credentials == io.xio.engine.Credentials.NONE ||
                session.options().credentialsOnRedirect() ? null : weakenedBy(session.uri(), address);
            if (weakened != null)
            {
                retrySetup(new XioException("session to " + session.uri() + " was redirected to " + address.endpoint() +
                    ", " + weakened + ": its credentials are not sent there (SessionOptions" +
                    ".withCredentialsOnRedirect(true) allows it)"), hops, alternatives);
                return;
            }
            body = CallAdmission.announce(new SetupCodec.Writer().u8(hops).string(session.resource())
                .map(session.sentAttributes()).i32(session.limits().maxInFlight())
                .i32(session.limits().dedupWindow()), session.limits()).credentials(credentials)
                .u8(SetupCodec.FEATURES).toBytes();
        }
        catch (final XioException | IllegalArgumentException ex)
        {
            session.refused(ex);
            return;
        }
        if (body.length > session.limits().maxHeaderBytes())
        {
            session.refused(new IllegalArgumentException("set-up attributes and credentials of " + body.length +
                " bytes exceed the " + session.limits().maxHeaderBytes() + "-byte header limit"));
            return;
        }
        lane.peers.connect(address, lane.slot, session.options().tls(), c ->
        {
            if (lane.isClosed())
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
                    lane.loop.cancelTimer(timer[0]);
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
                    lane.loop.cancelTimer(timer[0]);
                    retrySetup(cause, hops, alternatives);
                }
            });
            timer[0] = lane.loop.schedule(lane.loop.nanoTime() + session.connectTimeout().toNanos(), () ->
            {
                c.forget(token);
                c.releaseIfUnused();
                retrySetup(new ConnectionException("no answer to the session set-up from " + address.endpoint() +
                    " within " + session.connectTimeout()), hops, alternatives);
            });
            c.sendControl(FrameType.SETUP, 0, 0, token, 0, body);
        }, cause -> retrySetup(cause, hops, alternatives));
    }

    /**
     * What this set-up presents, asked of the session's supplier every time (never kept: a refreshed token goes
     * with the next set-up). A supplier that throws or gives nothing fails the set-up; its message may name the
     * supplier's trouble, never a secret, since the engine has none to name.
     */
    private io.xio.engine.Credentials credentials()
    {
        final io.xio.engine.Credentials credentials;
        try
        {
            credentials = session.options().credentials().get();
        }
        catch (final RuntimeException ex)
        {
            throw new XioException("the credentials supplier of session " + session.describe() + " failed: " + ex,
                ex);
        }
        if (credentials == null)
        {
            throw new XioException("the credentials supplier of session " + session.describe() + " gave none " +
                "(Credentials.NONE sends none)");
        }
        return credentials;
    }

    /**
     * How a redirect from where the session was {@code opened} to {@code target} would weaken the protection of the
     * credentials sent there, in words; null if it does not. Leaving tls for another scheme sends them in the clear
     * (or over rdma, which has no encryption); leaving the machine ({@code shm}, {@code local}) for the network sends
     * them over a wire; another host is a server the application did not choose, named by the server (or whoever
     * answered in its place). Between local schemes and to another port of the same host they go.
     */
    public static String weakenedBy(final XioUri opened, final XioUri target)
    {
        return opened.weakeningTo(target);
    }

    private void retrySetup(final Throwable cause, final int hops, final List<XioUri> alternatives)
    {
        if (!alternatives.isEmpty() && !lane.isClosed())
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
                if (lane.isClosed())
                {
                    c.closeUnwanted(frame.sessionId()); // closed while the set-up was on its way
                    return;
                }
                final var attributes = body.map();
                final int peerMaxInFlight = body.i32();
                final int peerDedupWindow = body.i32();
                final byte[] secret = body.bytes();
                final CallAdmission.Announced sizes = CallAdmission.Announced.read(body);
                // A server from before connection portals ends here: the further connections go where this one did.
                final List<XioUri> connectionPortals = body.remaining() > 0 ? unweakened(portals(body.strings(),
                    address, "SETUP_ACCEPT"), address) : List.of();
                // A server from before streams ends here: it announces none.
                final int features = body.remaining() > 0 ? body.u8() : 0;
                target = address.endpoint();
                session.accepted(frame.sessionId(), secret, sizes, peerMaxInFlight, peerDedupWindow, features);
                lane.attach(c);
                session.established(attributes, target, connectionPortals);
            }
            case FrameType.SETUP_REJECT ->
            {
                final String reason = body.string();
                // the code came after the reason; a server from before it sends none
                final int code = body.remaining() > 0 ? body.u8() : SetupCodec.REJECT_REFUSED;
                c.releaseIfUnused();
                final String uri = address.withResource(session.resource()).toString();
                session.refused(code == SetupCodec.REJECT_DRAINING ? SessionRejectedException.draining(uri, reason) :
                    new SessionRejectedException(uri, reason, code == SetupCodec.REJECT_AUTHENTICATION));
            }
            case FrameType.SETUP_REDIRECT ->
            {
                final List<XioUri> portals = portals(body.strings(), address, "SETUP_REDIRECT");
                if (portals.isEmpty())
                {
                    throw new ProtocolViolationException("SETUP_REDIRECT without portals");
                }
                c.releaseIfUnused();
                if (hops + 1 > MAX_REDIRECTS)
                {
                    session.refused(new ConnectionException("session to " + session.uri() + " was redirected more " +
                        "than " + MAX_REDIRECTS + " times (last to " + portals + ")"));
                    return;
                }
                setup(portals.get(0), hops + 1, portals.subList(1, portals.size()));
            }
            default -> throw new ProtocolViolationException("unexpected " + FrameType.name(frame.type()) +
                " in answer to a set-up");
        }
    }

    /** The portals a server named, as this client reaches them; one that is not a URI is a violation. */
    private static List<XioUri> portals(final List<String> uris, final XioUri contacted, final String frame)
    {
        final List<XioUri> portals = new ArrayList<>(uris.size());
        for (final String uri : uris)
        {
            try
            {
                portals.add(XioUri.parse(uri).reachedVia(contacted).endpoint());
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ProtocolViolationException(frame + " to an unusable portal: " + ex.getMessage());
            }
        }
        return portals;
    }

    /**
     * The connection portals that protect the session as well as {@code accepted}, where it was set up: each
     * ATTACH carries the session's secret, so a portal on another host, in the clear after tls, or on the network
     * after a local transport is skipped whatever the credentials (the lanes go to {@code accepted} instead).
     */
    private List<XioUri> unweakened(final List<XioUri> portals, final XioUri accepted)
    {
        final List<XioUri> kept = new ArrayList<>(portals.size());
        for (final XioUri portal : portals)
        {
            final String weakened = weakenedBy(accepted, portal);
            if (weakened == null)
            {
                kept.add(portal);
            }
            else
            {
                LOG.warn("session {} skips the connection portal {} the server named: {}; the session's secret " +
                    "is not sent there", session.describe(), portal, weakened);
            }
        }
        return kept;
    }

    /**
     * First connection of a lane other than the first: attach to the session at {@code address}, else at the
     * {@code alternatives} in turn (when it cannot connect there); {@code done} either way.
     */
    @Override
    public void connectFirst(final XioUri address, final List<XioUri> alternatives, final Runnable done)
    {
        target = address;
        attach(done, cause ->
        {
            if (!alternatives.isEmpty() && !lane.isClosed())
            {
                // A connection portal this client cannot reach: the next, and at last the one that accepted.
                connectFirst(alternatives.get(0), alternatives.subList(1, alternatives.size()), done);
                return;
            }
            lane.failed(cause);
            done.run();
            scheduleReconnect(cause);
        });
    }

    private void attach(final Runnable onAttached, final Consumer<Throwable> onFailed)
    {
        lane.peers.connect(target, lane.slot, session.options().tls(), c ->
        {
            if (lane.isClosed())
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
                        if (lane.isClosed())
                        {
                            connection.closeUnwanted(frame.sessionId()); // closed while the attach was on its way
                            return;
                        }
                        lane.attach(connection);
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
            c.sendControl(FrameType.ATTACH, 0, session.id(), token, 0,
                new SetupCodec.Writer().bytes(session.secret()).toBytes());
        }, onFailed);
    }

    /** The connection was lost (or an attach failed): try again after the backoff, within the reconnect timeout. */
    @Override
    public void scheduleReconnect(final Throwable cause)
    {
        if (lane.isClosed() || !session.initiator())
        {
            return;
        }
        final long now = lane.loop.nanoTime();
        if (!lost)
        {
            lost = true;
            lostAt = now;
        }
        if (now - lostAt > session.reconnectTimeout().toNanos())
        {
            session.fail(new ConnectionException("lost the connection to " + target + " and could not " +
                "re-establish it within " + session.reconnectTimeout() + ": " + cause.getMessage(), cause));
            return;
        }
        final long delay = RECONNECT.delayNanos(attempts, session.reconnectJitter());
        attempts++;
        lane.loop.schedule(now + delay, () ->
        {
            if (!lane.isClosed() && !lane.isUp())
            {
                attach(() -> session.fire(SessionEvent.Type.RECONNECTED, "session " + session.describe() +
                    " reconnected to " + target, null), this::scheduleReconnect);
            }
        });
    }
}
