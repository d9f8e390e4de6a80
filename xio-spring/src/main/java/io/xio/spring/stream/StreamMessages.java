package io.xio.spring.stream;

import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Type;
import java.nio.ByteBuffer;

/**
 * One message of a stream on the wire: a value of a data type ({@code byte[]}, {@code ByteBuffer}) travels as the
 * message's one data segment, untouched, with an empty header; any other value is the header, as the codec encodes
 * it. Both sides of a stream use this; the stream's opening message is an ordinary call's ({@link Invocation}), the
 * streamed parameter left out. Stateless; any thread.
 */
public final class StreamMessages
{
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private StreamMessages()
    {
    }

    /** The message carrying {@code value} of {@code type}. */
    public static Outbound encode(final XioCodec codec, final @Nullable Object value, final Type type)
    {
        if (ServiceMethod.isSegment(type))
        {
            return Outbound.of(EMPTY, Invocation.asBuffer(value));
        }
        return Outbound.of(codec.encode(value, type));
    }

    /**
     * The value {@code message} carries, as {@code type}; closes the message, whose buffer the engine reuses (a
     * {@code ByteBuffer} value is a copy for that reason).
     *
     * @throws IllegalArgumentException when the message is not one of {@code type}
     */
    public static @Nullable Object decode(final XioCodec codec, final Message message, final Type type)
    {
        try
        {
            if (ServiceMethod.isSegment(type))
            {
                if (message.segmentCount() != 1)
                {
                    throw new IllegalArgumentException("a stream message of " + type.getTypeName() +
                        " carries one data segment, not " + message.segmentCount());
                }
                final byte[] bytes = (byte[])Invocation.fromSegment(message, 0, byte[].class);
                return type == byte[].class ? bytes : ByteBuffer.wrap(bytes).asReadOnlyBuffer();
            }
            return codec.decode(message.header(), type);
        }
        finally
        {
            message.close();
        }
    }
}
