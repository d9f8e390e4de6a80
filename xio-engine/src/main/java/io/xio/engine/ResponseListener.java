package io.xio.engine;

/**
 * Receives the outcome of a request sent with {@link Session#request(Outbound, CallOptions, ResponseListener)}:
 * the allocation-free alternative to a {@link XioFuture}. Exactly one of the two methods is called once per
 * request, on the context thread that holds the request (do not block there), or on the calling thread when
 * the request is refused at once. When it is called, xio no longer references the request's buffers.
 */
public interface ResponseListener
{
    /**
     * The response to request {@code requestId}. {@code response} is valid only during this call: xio closes it
     * (and may reuse the object) when the method returns, so copy what must outlive it.
     */
    void onResponse(long requestId, Message response);

    /**
     * Request {@code requestId} failed: {@link RemoteException}, {@link XioTimeoutException},
     * {@link ConnectionException}, {@link BackPressureException}, {@link RequestCancelledException} (from
     * {@link Session#cancel(long, long)} or {@link Session#cancelAll()}) or {@link XioException}. {@code requestId}
     * is 0 when the request was refused before it was given an id.
     */
    void onFailure(long requestId, Throwable cause);
}
