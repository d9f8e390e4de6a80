package io.xio.engine;

/**
 * Runs around each request and one-way message a session sends: adds metadata (an auth token, a tenant, a
 * correlation id, a trace context) or changes the call's options before it leaves, refuses it by throwing, and
 * hears its outcome. Register for every session of an engine with {@link XioEngine.Builder#clientInterceptor};
 * they apply to the requests either side of a session sends.
 *
 * <p>{@link #beforeSend} runs on the caller's thread, in registration order (for an attempt that tries a call
 * again, on the thread that starts it, which may be a context's or a service client's: do not block there either);
 * {@link #onOutcome} in reverse order on the thread that completes the call (often a context thread: do not block).
 * Implementations are shared by every call, so they must be thread-safe.
 */
public interface ClientInterceptor
{
    /**
     * Before the call is admitted. The interceptor may add to the message's metadata, or attach a new one (a
     * metadata sent before is read-only: attach a copy, {@code message.metadata(new Metadata(old).put(k, v))}), and
     * return other options. A throw fails the call at once, with that exception (wrapped in an
     * {@link XioException} unless it is one); the interceptors that ran before it hear that outcome. An exactly-once
     * call's idempotency key is settled after the interceptors ran, with the options they return
     * ({@link CallOptions#exactlyOnce()}): a copy of the call's metadata keeps a key made for it.
     *
     * @return the options to send with: {@code options} itself, or changed ones
     */
    default CallOptions beforeSend(final Session session, final Outbound message, final CallOptions options)
    {
        return options;
    }

    /**
     * The call's outcome, before its caller hears it: the response (its {@link Message#metadata()} readable; do
     * not close or keep it) or, with a null response, the failure; for a one-way message both are null once it
     * was delivered. Exceptions thrown here are logged and do not change the outcome.
     */
    default void onOutcome(final Session session, final long requestId, final Message response,
        final Throwable failure)
    {
    }
}
