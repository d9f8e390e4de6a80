package io.xio.engine.session.connection;

import io.xio.engine.GoAway;
import io.xio.engine.XioUri;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;

/**
 * A session's lane as the connection carrying it sees it: where the session's frames and the connection's news
 * go. The lane implements it, so that a connection (below the lanes) names none of theirs. Owner context thread.
 */
public interface CarriedLane
{
    void onFrame(int type, Frame frame, Slab slab);

    /** The connection has room again. */
    void drainWaiting();

    void onConnectionLost(Connection connection, Throwable cause);

    /** The peer closed the session (SESSION_CLOSE), saying why. */
    void closedByPeer(String reason);

    /** The server asks the session to go away; {@code contacted} is this connection's address. */
    void goAwayArrived(GoAway goAway, XioUri contacted);

    /** The session's id and address, for the log. */
    String describeSession();
}
