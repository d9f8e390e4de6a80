package io.xio.engine;

/** A bound server address served by one context. Thread-safe. */
public interface Portal extends AutoCloseable
{
    /** The address clients connect to, with the real port when port 0 was bound. */
    XioUri uri();

    /** The context that serves this portal. */
    Context context();

    /** False once closed. */
    boolean isOpen();

    /**
     * Stops accepting connections and sessions: a connection that reaches the portal after this call is closed
     * unanswered, and a session set up after it on a connection accepted before is refused as by a draining server
     * (so a client tries elsewhere). The address is free once the portal's context has stopped its listener (on its
     * next turn). Sessions already established carry on.
     */
    @Override
    void close();
}
