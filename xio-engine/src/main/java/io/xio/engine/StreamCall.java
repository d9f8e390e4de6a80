package io.xio.engine;

/**
 * A stream as the side that opened it ({@link Session#openStream}) holds it. Its listener hears the acceptor's
 * messages, then {@link StreamListener#onComplete} with the acceptor's trailers, or {@link StreamListener#onError}:
 * a {@link RemoteException} for the acceptor's failure, an {@link XioTimeoutException} at the stream's deadline, a
 * {@link RequestCancelledException} after a cancel by either side, a {@link ConnectionException} when the session
 * closed.
 */
public interface StreamCall extends XioStream
{
    /**
     * Ends this side's direction after the messages offered so far (a half-close): the acceptor's listener hears
     * {@link StreamListener#onHalfClose()} after the last of them; the acceptor may go on sending. The sending thread;
     * nothing once the stream is over.
     */
    void halfClose();
}
