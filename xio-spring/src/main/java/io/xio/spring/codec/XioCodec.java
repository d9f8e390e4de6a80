package io.xio.spring.codec;

import org.jspecify.annotations.Nullable;

import java.lang.reflect.Type;
import java.nio.ByteBuffer;

/**
 * Turns method arguments and results into the bytes of a message's header and back. A bean: define your own
 * to replace the Jackson one. Implementations must be thread-safe.
 */
public interface XioCodec
{
    /**
     * Encodes the arguments of one call, each as its parameter's declared type (so polymorphic type ids
     * survive); {@code null} entries stand for arguments sent as data segments.
     */
    byte[] encodeArguments(@Nullable Object[] arguments, Type[] types);

    /**
     * {@link #encodeArguments(Object[], Type[])} into {@code out}: a codec that streams its output overrides it, so a
     * caller that reuses {@code out} (one per thread) makes no array of its own per call.
     */
    default void encodeArguments(final @Nullable Object[] arguments, final Type[] types,
        final java.io.ByteArrayOutputStream out)
    {
        out.writeBytes(encodeArguments(arguments, types));
    }

    /** Decodes arguments encoded by {@link #encodeArguments}, each to its parameter's generic type. */
    @Nullable Object[] decodeArguments(ByteBuffer bytes, Type[] types);

    /** Encodes a result as its declared type; null as the codec writes null. */
    byte[] encode(@Nullable Object value, Type type);

    @Nullable Object decode(ByteBuffer bytes, Type type);
}
