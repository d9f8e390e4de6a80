package io.xio.engine.session.connection;

import io.xio.engine.protocol.Frame;

/**
 * What answers the set-ups and attaches an accepted connection receives (server side): the server handshake,
 * which lies above connections and is made for each by the engine's core. Owner context thread.
 */
public interface ServerSetups
{
    void onSetup(Frame frame);

    void onAttach(Frame frame);

    /** The sweep came by: the failures counted so far are forgotten. */
    void newPeriod();
}
