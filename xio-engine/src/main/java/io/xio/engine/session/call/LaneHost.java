package io.xio.engine.session.call;

import io.xio.engine.Limits;
import io.xio.engine.SessionEvent;
import io.xio.engine.session.SessionDrain;

import java.time.Duration;

/**
 * A session as its lanes, and the parts each lane routes frames to, see it: who it is, where it is in its life, the
 * lanes coming and going, and the session-wide parts they share. The session's {@code SessionHost} implements it; no
 * lane sees the session's facade. Any thread.
 */
public interface LaneHost
{
    /** The session's id; 0 until a client session is set up. */
    long id();

    /** The session for messages and logs: its id and where it goes. */
    String describe();

    /** Whether this side opened the session (client) rather than accepted it. */
    boolean initiator();

    /** The flag that marks this side's request ids on the wire. */
    int mineFlag();

    boolean isOpen();

    /** Why the session closed, or null. */
    Throwable closedBy();

    /** Tells the session's listener. */
    void fire(SessionEvent.Type type, String detail, Throwable cause);

    /** The peer closed the session (its CLOSE frame). */
    void closedByPeer(String reason);

    /** A lane came up: lanes still down hand it their waiting requests. */
    void laneUp(Lane lane);

    /** A server lane is gone for good: the session forgets it, and expires if none is left. */
    void removeServerLane(Lane lane);

    /** A server lane lost the last connection and keeps this side's requests for the client's return. */
    void parked(Lane lane);

    /** The session's GOAWAY and drain. */
    SessionDrain drain();

    /** The session's range cancels under way: a lane handing a request over looks there first. */
    RangeCancels rangeCancels();

    /** A request went out again, on a connection other than its first. */
    void retransmitted();

    /** Whether the session may carry streams: both sides announced them at set-up. */
    boolean streams();

    /** The limits the engine holds its peers and itself to. */
    Limits limits();

    /** How long a connection may go without a frame from its peer before it counts as lost. */
    Duration keepaliveTimeout();

    /** How long a client tries a lost connection again, and a server keeps a session that has none. */
    Duration reconnectTimeout();
}
