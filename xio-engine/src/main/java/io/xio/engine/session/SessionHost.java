package io.xio.engine.session;

import io.xio.engine.SessionEvent;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioUri;
import io.xio.engine.session.admission.CallAdmission;
import io.xio.engine.session.call.Lane;
import io.xio.engine.session.call.LaneHost;
import io.xio.engine.session.call.RangeCancels;
import io.xio.engine.session.connection.Peers;
import io.xio.engine.session.handshake.ClientHandshake;

import java.time.Duration;
import java.util.Map;

/**
 * What a session's parts may ask of it, kept off the session's public face: each part sees only the narrow
 * {@code Host} it was made with (its lanes a {@link LaneHost}, the client set-up a {@link ClientHandshake.Host}, the
 * drain, the admission and the lanes' roster theirs), and this adapter answers them from the session. Besides the
 * session registry, the only class that knows the facade. Any thread, as each host says.
 */
final class SessionHost implements SessionDrain.Host, CallAdmission.Host, SessionLanes.Host, ClientHandshake.Host
{
    private final SessionImpl session;

    SessionHost(final SessionImpl session)
    {
        this.session = session;
    }

    @Override
    public long id()
    {
        return session.id();
    }

    @Override
    public boolean initiator()
    {
        return session.initiator;
    }

    @Override
    public int mineFlag()
    {
        return session.mineFlag;
    }

    @Override
    public Throwable closedBy()
    {
        return session.closedBy();
    }

    @Override
    public void fire(final SessionEvent.Type type, final String detail, final Throwable cause)
    {
        session.fire(type, detail, cause);
    }

    @Override
    public void closedByPeer(final String reason)
    {
        session.closedByPeer(reason);
    }

    @Override
    public void laneUp(final Lane lane)
    {
        session.laneUp(lane);
    }

    @Override
    public void removeServerLane(final Lane lane)
    {
        session.joined.leave(lane);
    }

    @Override
    public void parked(final Lane lane)
    {
        session.joined.parked(lane);
    }

    @Override
    public RangeCancels rangeCancels()
    {
        return session.rangeCancels;
    }

    @Override
    public void retransmitted()
    {
        session.retransmits.incrementAndGet();
    }

    @Override
    public io.xio.engine.Limits limits()
    {
        return session.engine.limits;
    }

    @Override
    public XioUri uri()
    {
        return session.uri;
    }

    @Override
    public String resource()
    {
        return session.resource;
    }

    @Override
    public SessionOptions options()
    {
        return session.options;
    }

    @Override
    public Map<String, String> sentAttributes()
    {
        return session.sentAttributes;
    }

    @Override
    public byte[] secret()
    {
        return session.identity.secret();
    }

    @Override
    public boolean streams()
    {
        return session.identity.streams;
    }

    @Override
    public void accepted(final long sessionId, final byte[] secret, final CallAdmission.Announced sizes,
        final int peerMaxInFlight, final int peerDedupWindow, final int features)
    {
        session.identity.streams = (features & io.xio.engine.protocol.SetupCodec.FEATURE_STREAMS) != 0;
        session.accepted(sessionId, secret, sizes, peerMaxInFlight, peerDedupWindow);
    }

    @Override
    public void established(final Map<String, String> attributes, final XioUri target,
        final java.util.List<XioUri> connectionPortals)
    {
        session.established(attributes, target, connectionPortals);
    }

    @Override
    public void refused(final Throwable cause)
    {
        session.refused(cause);
    }

    @Override
    public void fail(final Throwable cause)
    {
        session.fail(cause);
    }

    @Override
    public Duration connectTimeout()
    {
        return session.engine.connectTimeout;
    }

    @Override
    public Duration reconnectTimeout()
    {
        return session.engine.reconnectTimeout;
    }

    @Override
    public Duration keepaliveTimeout()
    {
        return session.engine.keepaliveTimeout;
    }

    @Override
    public long reconnectJitter()
    {
        return session.engine.reconnectJitter.getAsLong();
    }

    @Override
    public boolean isClosed()
    {
        return session.life.isClosed();
    }

    @Override
    public void expireLater(final Peers peers, final long epoch)
    {
        peers.expireLater(session, epoch);
    }

    @Override
    public void rejected()
    {
        session.rejected();
    }

    @Override
    public SessionDrain drain()
    {
        return session.drain;
    }

    @Override
    public boolean isOpen()
    {
        return session.isOpen();
    }

    @Override
    public String describe()
    {
        return session.describe();
    }

    @Override
    public void fire(final SessionEvent.Type type, final String detail)
    {
        session.fire(type, detail, null);
    }

    @Override
    public void close()
    {
        session.close();
    }
}
