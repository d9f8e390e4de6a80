package io.xio.spring.autoconfigure.codec;

import java.lang.reflect.Type;
import java.nio.ByteBuffer;

/**
 * Turns method arguments and results into the bytes of a message's header and back. A bean: define your own
 * to replace the Jackson one. Implementations must be thread-safe.
 */
public interface XioCodec
{
    /** Encodes the arguments of one call; {@code null} entries stand for arguments sent as data segments. */
    byte[] encodeArguments(Object[] arguments);

    /** Decodes arguments encoded by {@link #encodeArguments}, each to its parameter's generic type. */
    Object[] decodeArguments(ByteBuffer bytes, Type[] types);

    byte[] encode(Object value);

    Object decode(ByteBuffer bytes, Type type);
}
