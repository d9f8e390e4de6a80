package io.xio.engine.protocol;

import io.xio.engine.Metadata;
import org.agrona.DirectBuffer;
import org.agrona.LangUtil;
import org.agrona.MutableDirectBuffer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Codec of the call-context block (protocol v2): what a REQUEST or RESPONSE with {@link FrameFlags#CONTEXT}
 * carries at the start of its application-header area, before the application's own header. The block is
 * {@code u16 length} (of the items that follow), then items, each led by a {@code u8 kind}:
 * <ul>
 *     <li>{@link #DEADLINE}: {@code i64} nanoseconds the caller still waits, counted when the frame was written
 *     (relative, so the two clocks need not agree); REQUEST only, at most once;</li>
 *     <li>{@link #ENTRY}: {@code u8} key length, the key (1..255 bytes of {@code a-z 0-9 - _ .}), {@code u16}
 *     value length, the value.</li>
 * </ul>
 * A call with no deadline and no metadata sends no block and no flag.
 *
 * <p>It reads and fills {@link Metadata} through the metadata's package-private members (entries without copies or
 * checks, the read-only seal), bound once through a private lookup into the API class, so that the exported API
 * package names nothing of this one; the JIT inlines each constant handle like a direct call. Stateless; any
 * thread.
 */
public final class CallContext
{
    public static final int DEADLINE = 1;
    public static final int ENTRY = 2;
    /** The block's own length field. */
    public static final int LENGTH_FIELD = 2;
    /** A deadline item: kind and i64. */
    public static final int DEADLINE_ITEM = 9;
    /** {@link #remaining}: the block carries no deadline. */
    public static final long NO_DEADLINE = 0;

    private static final MethodHandle KEY_AT;
    private static final MethodHandle VALUE_AT;
    private static final MethodHandle APPEND;
    private static final MethodHandle SEAL;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Metadata.class, MethodHandles.lookup());
            KEY_AT = lookup.findVirtual(Metadata.class, "keyAt", MethodType.methodType(String.class, int.class));
            VALUE_AT = lookup.findVirtual(Metadata.class, "valueAt", MethodType.methodType(byte[].class, int.class));
            APPEND = lookup.findVirtual(Metadata.class, "append",
                MethodType.methodType(Metadata.class, String.class, byte[].class));
            SEAL = lookup.findVirtual(Metadata.class, "seal", MethodType.methodType(Metadata.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private CallContext()
    {
    }

    /** Bytes of the items for a deadline (when {@code remaining > 0}) and {@code metadata} (may be null). */
    public static int itemsLength(final long remaining, final Metadata metadata)
    {
        return (remaining > 0 ? DEADLINE_ITEM : 0) + (metadata == null ? 0 : metadata.encodedLength());
    }

    /** Bytes of the whole block, length field included: 0 when there is nothing to carry. */
    public static int blockLength(final long remaining, final Metadata metadata)
    {
        final int items = itemsLength(remaining, metadata);
        return items == 0 ? 0 : LENGTH_FIELD + items;
    }

    /**
     * Writes the block at {@code at}; {@link #blockLength} bytes, which must be more than 0. Writes keys and
     * values as they are stored: no allocation.
     */
    public static void write(final MutableDirectBuffer buffer, final int at, final long remaining,
        final Metadata metadata)
    {
        buffer.putShort(at, (short)itemsLength(remaining, metadata), Frame.ORDER);
        int next = at + LENGTH_FIELD;
        if (remaining > 0)
        {
            buffer.putByte(next, (byte)DEADLINE);
            buffer.putLong(next + 1, remaining, Frame.ORDER);
            next += DEADLINE_ITEM;
        }
        final int size = metadata == null ? 0 : metadata.size();
        for (int i = 0; i < size; i++)
        {
            final String key = keyAt(metadata, i);
            final byte[] value = valueAt(metadata, i);
            final int keyLength = key.length();
            buffer.putByte(next, (byte)ENTRY);
            buffer.putByte(next + 1, (byte)keyLength);
            next += 2;
            for (int c = 0; c < keyLength; c++)
            {
                buffer.putByte(next + c, (byte)key.charAt(c));
            }
            next += keyLength;
            buffer.putShort(next, (short)value.length, Frame.ORDER);
            buffer.putBytes(next + 2, value);
            next += 2 + value.length;
        }
    }

    /**
     * Checks the block of {@code frame} (a REQUEST or RESPONSE with {@link FrameFlags#CONTEXT}), once the frame is
     * complete, before anything in it is used.
     *
     * @return null when acceptable, otherwise what is wrong
     */
    public static String check(final Frame frame, final int maxMetadataBytes)
    {
        final DirectBuffer buffer = frame.buffer();
        final int headerLength = frame.headerLength() - frame.prefixLength();
        if (headerLength < LENGTH_FIELD)
        {
            return "call context flagged, but the " + headerLength + "-byte header has no room for its length";
        }
        final int start = frame.contextOffset();
        final int items = buffer.getShort(start, Frame.ORDER) & 0xFFFF;
        if (items > maxMetadataBytes)
        {
            return "call context of " + items + " bytes exceeds the limit of " + maxMetadataBytes +
                " bytes (maxMetadataBytes)";
        }
        if (LENGTH_FIELD + items > headerLength)
        {
            return "call context of " + items + " bytes overruns the " + headerLength + "-byte header";
        }
        final boolean request = frame.type() == FrameType.REQUEST;
        final int end = start + LENGTH_FIELD + items;
        int at = start + LENGTH_FIELD;
        boolean deadline = false;
        while (at < end)
        {
            final int kind = buffer.getByte(at) & 0xFF;
            if (kind == DEADLINE)
            {
                if (!request || deadline)
                {
                    return request ? "call context with two deadlines" :
                        "deadline in the call context of a " + FrameType.name(frame.type());
                }
                if (end - at < DEADLINE_ITEM)
                {
                    return "call context too short for its deadline";
                }
                if (buffer.getLong(at + 1, Frame.ORDER) <= 0)
                {
                    return "call context deadline of " + buffer.getLong(at + 1, Frame.ORDER) + " ns is not positive";
                }
                deadline = true;
                at += DEADLINE_ITEM;
            }
            else if (kind == ENTRY)
            {
                final String problem = checkEntry(buffer, at, end);
                if (problem != null)
                {
                    return problem;
                }
                at = entryEnd(buffer, at);
            }
            else
            {
                return "unknown call context item " + kind;
            }
        }
        return null;
    }

    private static String checkEntry(final DirectBuffer buffer, final int at, final int end)
    {
        if (end - at < 2)
        {
            return "call context too short for a metadata key length";
        }
        final int keyLength = buffer.getByte(at + 1) & 0xFF;
        if (keyLength == 0)
        {
            return "metadata key of 0 bytes";
        }
        final int keyAt = at + 2;
        if (end - keyAt < keyLength + 2)
        {
            return "call context too short for a metadata key of " + keyLength + " bytes and its value length";
        }
        for (int c = 0; c < keyLength; c++)
        {
            final int b = buffer.getByte(keyAt + c) & 0xFF;
            if (!(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_' || b == '.'))
            {
                return "metadata key with the byte " + b + " (keys are lower case: a-z 0-9 - _ .)";
            }
        }
        final int valueLength = buffer.getShort(keyAt + keyLength, Frame.ORDER) & 0xFFFF;
        if (end - (keyAt + keyLength + 2) < valueLength)
        {
            return "call context too short for a metadata value of " + valueLength + " bytes";
        }
        return null;
    }

    private static int entryEnd(final DirectBuffer buffer, final int at)
    {
        final int keyLength = buffer.getByte(at + 1) & 0xFF;
        final int valueAt = at + 2 + keyLength + 2;
        return valueAt + (buffer.getShort(valueAt - 2, Frame.ORDER) & 0xFFFF);
    }

    /** Bytes of the block at {@code at}, length field included (a checked block). */
    public static int blockLengthAt(final DirectBuffer buffer, final int at)
    {
        return LENGTH_FIELD + (buffer.getShort(at, Frame.ORDER) & 0xFFFF);
    }

    /** The deadline in the checked block at {@code at}, in nanoseconds left, or {@link #NO_DEADLINE}. */
    public static long remaining(final DirectBuffer buffer, final int at)
    {
        final int end = at + blockLengthAt(buffer, at);
        int next = at + LENGTH_FIELD;
        while (next < end)
        {
            if ((buffer.getByte(next) & 0xFF) == DEADLINE)
            {
                return buffer.getLong(next + 1, Frame.ORDER);
            }
            next = entryEnd(buffer, next);
        }
        return NO_DEADLINE;
    }

    /** Whether the checked block at {@code at} has metadata entries. */
    public static boolean hasEntries(final DirectBuffer buffer, final int at)
    {
        final int end = at + blockLengthAt(buffer, at);
        int next = at + LENGTH_FIELD;
        while (next < end)
        {
            if ((buffer.getByte(next) & 0xFF) == ENTRY)
            {
                return true;
            }
            next += DEADLINE_ITEM;
        }
        return false;
    }

    /** The metadata entries of the checked block at {@code at}, read-only. */
    public static Metadata decode(final DirectBuffer buffer, final int at)
    {
        final Metadata into = new Metadata();
        final int end = at + blockLengthAt(buffer, at);
        int next = at + LENGTH_FIELD;
        while (next < end)
        {
            if ((buffer.getByte(next) & 0xFF) == DEADLINE)
            {
                next += DEADLINE_ITEM;
                continue;
            }
            final int keyLength = buffer.getByte(next + 1) & 0xFF;
            final byte[] key = new byte[keyLength];
            buffer.getBytes(next + 2, key);
            final int valueAt = next + 2 + keyLength + 2;
            final byte[] value = new byte[buffer.getShort(valueAt - 2, Frame.ORDER) & 0xFFFF];
            buffer.getBytes(valueAt, value);
            append(into, new String(key, java.nio.charset.StandardCharsets.ISO_8859_1), value);
            next = valueAt + value.length;
        }
        return seal(into);
    }

    /**
     * Makes {@code metadata} read-only: decoded from the wire, or handed to xio with a message, whose every write
     * (a retransmit too) encodes it again.
     */
    public static Metadata seal(final Metadata metadata)
    {
        try
        {
            return (Metadata)SEAL.invokeExact(metadata);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** The key of entry {@code index} (1 to 255 characters of one byte each), unchecked. */
    private static String keyAt(final Metadata metadata, final int index)
    {
        try
        {
            return (String)KEY_AT.invokeExact(metadata, index);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** The encoded value of entry {@code index}, not copied: not to be changed. */
    private static byte[] valueAt(final Metadata metadata, final int index)
    {
        try
        {
            return (byte[])VALUE_AT.invokeExact(metadata, index);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** Appends an entry decoded from the wire and checked there. */
    private static Metadata append(final Metadata metadata, final String key, final byte[] value)
    {
        try
        {
            return (Metadata)APPEND.invokeExact(metadata, key, value);
        }
        catch (final Throwable ex)
        {
            throw unchecked(ex);
        }
    }

    /** What a bound member threw, thrown on as it is: none of them declares a checked exception. */
    private static RuntimeException unchecked(final Throwable ex)
    {
        LangUtil.rethrowUnchecked(ex);
        return new IllegalStateException(ex); // not reached: the line above throws
    }
}
