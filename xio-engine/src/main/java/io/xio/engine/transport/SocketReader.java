package io.xio.engine.transport;

/**
 * A socket link that a busy context may read without asking its selector first (see
 * {@link TransportContext#addSocketReader}). Context thread only.
 */
public interface SocketReader
{
    /** Reads what the socket has, if anything, without blocking; returns 1 when bytes came, else 0. */
    int readAvailable();
}
