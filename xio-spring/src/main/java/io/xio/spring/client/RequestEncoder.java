package io.xio.spring.client;

import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;

/**
 * Makes the request of a client call: its method's constant header, or its name and arguments encoded by the codec
 * through the calling thread's buffer, and its data segments; the call's metadata; and for an attempt after the
 * first, the same data with the metadata as the proxy made it. Immutable; any thread.
 */
final class RequestEncoder
{
    private final XioCodec codec;
    private final boolean resends;

    /** For a client that tries calls again when {@code retry} allows more than one attempt. */
    RequestEncoder(final XioCodec codec, final RetryPolicy retry)
    {
        this.codec = codec;
        this.resends = retry.maxAttempts() > 1;
    }

    /**
     * A new request of {@code state}'s method with {@code arguments}, encoded through {@code waiter}'s buffer (the
     * calling thread's); with {@code copySegments} its segments are copies, for a caller that may reuse its buffers
     * once the call returns.
     */
    Outbound encode(final ClientMethodState state, final @Nullable Object[] arguments, final CallerWaiter waiter,
        final boolean copySegments)
    {
        final ByteBuffer header = state.sharedHeader != null ? state.sharedHeader : header(state, arguments, waiter);
        if (state.segmentCount == 0)
        {
            return Outbound.of(header);
        }
        final ByteBuffer[] segments = new ByteBuffer[state.segmentCount];
        final boolean[] isSegment = state.call.segments();
        int at = 0;
        for (int i = 0; i < isSegment.length; i++)
        {
            if (isSegment[i])
            {
                final ByteBuffer segment = Invocation.asBuffer(arguments[i]);
                segments[at++] = copySegments
                    ? ByteBuffer.allocate(segment.remaining()).put(segment.duplicate()).flip() : segment;
            }
        }
        return Outbound.of(header, segments);
    }

    /** The method's name and the encoded arguments. */
    private ByteBuffer header(final ClientMethodState state, final @Nullable Object[] arguments,
        final CallerWaiter waiter)
    {
        final ServiceMethod call = state.call;
        final Object[] encoded = state.segmentCount > 0 ? Invocation.withoutSegments(call, arguments) : arguments;
        if (waiter.encoding)
        {
            // A codec that calls a proxy while it encodes: the thread's buffer is taken.
            return Invocation.header(call.wireName(), codec.encodeArguments(encoded, call.parameterTypes()));
        }
        final ByteBuffer header;
        waiter.encoding = true;
        try
        {
            final java.io.ByteArrayOutputStream out = waiter.out;
            out.reset();
            out.write(state.name, 0, state.name.length);
            codec.encodeArguments(encoded, call.parameterTypes(), out);
            header = ByteBuffer.wrap(out.toByteArray());
        }
        finally
        {
            waiter.encoding = false;
        }
        if (waiter.out.size() > CallerWaiter.KEPT_BYTES)
        {
            waiter.out = new java.io.ByteArrayOutputStream(CallerWaiter.KEPT_BYTES / 4); // not kept for ever
        }
        return header;
    }

    /** {@code message} with {@code metadata} when the call has any. */
    static Outbound withMetadata(final Outbound message, final @Nullable Metadata metadata)
    {
        return metadata != null && !metadata.isEmpty() ? message.metadata(metadata) : message;
    }

    /**
     * For a call of {@code call} that may be sent again: a copy of its {@code metadata} as the proxy made it, before
     * the engine's interceptors added theirs to the first send; else null. An exactly-once call's is kept whatever
     * the attempts: it holds the call's key, which a call that ends unsettled gives its caller
     * ({@link #exactlyOnceKey}), even when it had one attempt only.
     */
    @Nullable Metadata keptForResend(final ServiceMethod call, final @Nullable Metadata metadata)
    {
        return (resends || call.exactlyOnce()) && metadata != null && !metadata.isEmpty() ? new Metadata(metadata)
            : null;
    }

    /**
     * The request of another attempt: the same header and segments (xio is done with them once the attempt failed)
     * and a fresh, unsealed copy of {@code kept}, the metadata {@link #keptForResend} kept: without what the engine's
     * interceptors added to the first send, which they add again.
     */
    static Outbound again(final Outbound message, final @Nullable Metadata kept)
    {
        return again(message, kept, false, 0);
    }

    /**
     * {@link #again(Outbound, Metadata)} for an attempt after {@code previousAttempts} others: an exactly-once call's
     * carries the key the first attempt's metadata ({@code kept}) carried, and says how many attempts went before
     * ({@link IdempotencyKeys#forRetry}), so that a server keeping a ledger runs the call once.
     */
    static Outbound again(final Outbound message, final @Nullable Metadata kept, final boolean exactlyOnce,
        final int previousAttempts)
    {
        final Outbound copy = message.sameData();
        if (kept == null)
        {
            return copy;
        }
        return copy.metadata(exactlyOnce ? IdempotencyKeys.forRetry(kept, previousAttempts) : new Metadata(kept));
    }

    /**
     * The metadata the first attempt of a call of {@code call} sends, from what the proxy and interceptors made
     * ({@code metadata}, null for none): an exactly-once call's carries its idempotency key, the application's own if
     * it set one, else one made here, once per call, which {@link #keptForResend} keeps for every later attempt.
     *
     * @throws IllegalArgumentException when the application's key is not a valid one
     */
    static @Nullable Metadata firstAttempt(final ServiceMethod call, final @Nullable Metadata metadata)
    {
        return call.exactlyOnce() ? IdempotencyKeys.forFirstAttempt(metadata) : metadata;
    }

    /** The idempotency key of an exactly-once {@code call}, which its first attempt's metadata {@code kept} keeps. */
    static @Nullable String exactlyOnceKey(final ServiceMethod call, final @Nullable Metadata kept)
    {
        return call.exactlyOnce() && kept != null ? IdempotencyKeys.of(kept) : null;
    }
}
