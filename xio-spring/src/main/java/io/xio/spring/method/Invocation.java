package io.xio.spring.method;

import io.xio.spring.codec.XioCodec;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The layout of a call in a message header: {@code u16 name length, name (UTF-8), codec-encoded arguments};
 * arguments that are data segments are null in the encoded array and travel as the message's segments, in
 * order. Stateless.
 */
public final class Invocation
{
    private Invocation()
    {
    }

    public static ByteBuffer header(final String wireName, final byte[] arguments)
    {
        final byte[] name = wireName.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer header = ByteBuffer.allocate(2 + name.length + arguments.length);
        header.putShort((short)name.length).put(name).put(arguments).flip();
        return header;
    }

    /** The wire name in a received header; leaves {@code header} positioned at the arguments. */
    public static String readName(final ByteBuffer header)
    {
        final int length = header.getShort() & 0xFFFF;
        if (length > header.remaining())
        {
            throw new IllegalArgumentException("call header names a " + length + "-byte method in " +
                header.remaining() + " bytes");
        }
        final byte[] name = new byte[length];
        header.get(name);
        return new String(name, StandardCharsets.UTF_8);
    }

    /** Splits {@code args} into the encoded header part and the data segments. */
    public static ByteBuffer[] segments(final ServiceMethod method, final @Nullable Object[] args)
    {
        int count = 0;
        for (final boolean segment : method.segments())
        {
            count += segment ? 1 : 0;
        }
        final ByteBuffer[] segments = new ByteBuffer[count];
        int at = 0;
        for (int i = 0; i < method.segments().length; i++)
        {
            if (method.segments()[i])
            {
                segments[at++] = asBuffer(args[i]);
            }
        }
        return segments;
    }

    public static @Nullable Object[] withoutSegments(final ServiceMethod method,
        final @Nullable Object @Nullable [] args)
    {
        final @Nullable Object[] encoded = args == null ? new Object[0] : args.clone();
        for (int i = 0; i < method.segments().length; i++)
        {
            if (method.segments()[i])
            {
                encoded[i] = null;
            }
        }
        return encoded;
    }

    public static ByteBuffer asBuffer(final @Nullable Object value)
    {
        if (value == null)
        {
            return ByteBuffer.allocate(0);
        }
        return value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : ((ByteBuffer)value).duplicate();
    }

    /** A received segment as the parameter or result type wants it: a read-only view, or a copied array. */
    public static Object fromSegment(final ByteBuffer segment, final java.lang.reflect.Type type)
    {
        if (type == byte[].class)
        {
            final byte[] bytes = new byte[segment.remaining()];
            segment.get(segment.position(), bytes);
            return bytes;
        }
        return segment.asReadOnlyBuffer();
    }

    /**
     * Segment {@code index} of {@code message} as the type wants it, as {@link #fromSegment}; a {@code byte[]} is
     * copied straight from where the segment lies, without a view.
     */
    public static Object fromSegment(final io.xio.engine.Message message, final int index,
        final java.lang.reflect.Type type)
    {
        if (type == byte[].class)
        {
            final byte[] bytes = new byte[message.segmentLength(index)];
            message.segmentBuffer(index).getBytes(message.segmentOffset(index), bytes);
            return bytes;
        }
        return fromSegment(message.segment(index), type);
    }

    /** The arguments of a call whose every argument is a data segment: nothing to decode. */
    public static Object[] segmentArguments(final ServiceMethod method, final io.xio.engine.Message message)
    {
        final Object[] args = new Object[method.segments().length];
        if (message.segmentCount() < args.length)
        {
            throw new IllegalArgumentException(method.wireName() + " expects more data segments");
        }
        for (int i = 0; i < args.length; i++)
        {
            args[i] = fromSegment(message, i, method.parameterTypes()[i]);
        }
        return args;
    }

    /** Decodes a call's arguments: codec-encoded ones from the header, segments from the message. */
    public static @Nullable Object[] arguments(final ServiceMethod method, final XioCodec codec,
        final ByteBuffer header, final ByteBuffer[] segments)
    {
        final @Nullable Object[] args = codec.decodeArguments(header, method.parameterTypes());
        int at = 0;
        for (int i = 0; i < args.length; i++)
        {
            if (method.segments()[i])
            {
                if (at >= segments.length)
                {
                    throw new IllegalArgumentException(method.wireName() + " expects more data segments");
                }
                args[i] = fromSegment(segments[at++], method.parameterTypes()[i]);
            }
        }
        return args;
    }
}
