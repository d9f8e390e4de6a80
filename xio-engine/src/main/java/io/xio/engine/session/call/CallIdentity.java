package io.xio.engine.session.call;

import io.xio.engine.CallOptions;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import org.agrona.LangUtil;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The identity a call sends ({@link IdempotencyKeys}): an exactly-once call's message gets its idempotency key, and
 * any call's message loses a key made for another call, once the client interceptors ran (with the options they
 * returned) and before the call is admitted. Through the keys' package-private {@code forCall}, bound once through a
 * private lookup, so that the exported API names nothing of this. Stateless; any thread.
 */
final class CallIdentity
{
    private static final MethodHandle FOR_CALL;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(IdempotencyKeys.class,
                MethodHandles.lookup());
            FOR_CALL = lookup.findStatic(IdempotencyKeys.class, "forCall",
                MethodType.methodType(Metadata.class, Metadata.class, Metadata.class, boolean.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private CallIdentity()
    {
    }

    /**
     * Gives {@code message} the metadata its call sends with {@code options}, once its client interceptors ran
     * ({@code given}: what it carried before they did, so that their copy keeps a key made for this call): unchanged
     * (and no allocation) for a call that is not exactly-once unless it carries a key made for another call.
     *
     * @throws IllegalArgumentException when the application's key in it is not valid
     */
    static void ready(final Outbound message, final Metadata given, final CallOptions options)
    {
        final Metadata metadata = message.metadata();
        if (metadata == null && !options.exactlyOnce())
        {
            return;
        }
        final Metadata sent;
        try
        {
            sent = (Metadata)FOR_CALL.invokeExact(given, metadata, options.exactlyOnce());
        }
        catch (final Throwable ex)
        {
            LangUtil.rethrowUnchecked(ex); // an IllegalArgumentException, say: forCall throws nothing checked
            return;
        }
        if (sent != metadata)
        {
            message.metadata(sent);
        }
    }
}
