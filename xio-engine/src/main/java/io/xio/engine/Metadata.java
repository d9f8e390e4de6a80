package io.xio.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Per-call metadata: a small ordered list of entries, each a key and a value, carried with a request or one-way
 * message (an auth token, a tenant, a correlation id, a trace context) or with a response (trailers). Keys are
 * 1 to 255 characters of {@code a-z 0-9 - _ .}; a key ending in {@code -bin} has a binary value, any other a
 * text value (UTF-8 on the wire), as in gRPC. A key may occur more than once; {@link #get} gives the first.
 *
 * <p>Attach one to a message with {@link Outbound#metadata(Metadata)}; read what arrived with
 * {@link Message#metadata()} or {@link InboundRequest#metadata()}. The encoded size of every entry counts
 * against the peer's {@link Limits#maxMetadataBytes()}: the sender refuses a call above its own limit, a receiver
 * closes the connection of a peer that sends more than its limit.
 *
 * <p>Values are encoded when they are added, so a metadata kept and sent again and again costs no allocation
 * per call. Once a message carrying it was handed to xio (a request or message sent, a response answered), it is
 * read-only ({@link #isReadOnly()}), since xio reads it again for every write of that message, a retransmit too:
 * to change it for a later call, copy it ({@link #Metadata(Metadata)}). Not thread-safe while being built.
 */
public final class Metadata
{
    /** Keys with this suffix carry binary values. */
    public static final String BINARY_SUFFIX = "-bin";
    /** Longest key, in characters (one byte each). */
    public static final int MAX_KEY_LENGTH = 255;
    /** Longest value, in bytes. */
    public static final int MAX_VALUE_LENGTH = 0xFFFF;
    /** Bytes of one entry besides its key and value on the wire: kind, key length, value length. */
    public static final int ENTRY_OVERHEAD = 4;

    private static final String[] NO_KEYS = new String[0];
    private static final byte[][] NO_VALUES = new byte[0][];

    /** No entries, read-only: what a message that arrived without metadata has. */
    public static final Metadata EMPTY = new Metadata();

    /** {@link #keyMark}: the idempotency key in it was made for one call, which has not sent it yet. */
    static final int KEY_NEW = 1;
    /** {@link #keyMark}: the idempotency key in it was made for one call, which sent it. */
    static final int KEY_SENT = 2;
    /** {@link #keyMark}: a copy of a metadata whose idempotency key was made for one call, not sent by any yet. */
    static final int KEY_COPIED = 3;
    private static final VarHandle KEY_MARK;

    static
    {
        EMPTY.readOnly = true;
        try
        {
            KEY_MARK = MethodHandles.lookup().findVarHandle(Metadata.class, "keyMark", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private String[] keys = NO_KEYS;
    private byte[][] values = NO_VALUES;
    private int size;
    private int encodedLength;
    /** Volatile: a thread still adding after another sent the message must see the seal and fail. */
    private volatile boolean readOnly;
    /**
     * 0, or {@link #KEY_NEW}, {@link #KEY_SENT} or {@link #KEY_COPIED}: the idempotency key in it is one
     * {@link IdempotencyKeys} made for one call, so another call that sends this metadata, or a copy of it, is not
     * that call. Changing the key entry clears it: the key is then the application's.
     */
    private volatile int keyMark;

    public Metadata()
    {
    }

    /**
     * A copy of {@code other} that may be changed, sharing its (immutable once added) value arrays. An idempotency
     * key made for one call ({@link CallOptions#exactlyOnce()}) is copied too, but only that call sends the copy with
     * it (a client interceptor's copy, say); any other does not (an exactly-once one gets a key of its own): to send
     * that call again with its key, use {@link IdempotencyKeys#forRetry}.
     */
    public Metadata(final Metadata other)
    {
        keys = Arrays.copyOf(other.keys, other.size);
        values = Arrays.copyOf(other.values, other.size);
        size = other.size;
        encodedLength = other.encodedLength;
        keyMark = other.keyMark == 0 ? 0 : KEY_COPIED;
    }

    /** Appends a text entry. */
    public Metadata add(final String key, final String value)
    {
        checkWritable();
        checkKey(key, false);
        return append(key, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Appends a binary entry; {@code key} must end in {@value #BINARY_SUFFIX}. The array is copied. */
    public Metadata add(final String key, final byte[] value)
    {
        checkWritable();
        checkKey(key, true);
        return append(key, value.clone());
    }

    /** Replaces every text entry of {@code key} with this one (appended when there was none). */
    public Metadata put(final String key, final String value)
    {
        checkWritable();
        checkKey(key, false); // before anything is removed
        remove(key);
        return add(key, value);
    }

    /** Replaces every binary entry of {@code key} with this one (appended when there was none). */
    public Metadata put(final String key, final byte[] value)
    {
        checkWritable();
        checkKey(key, true);
        remove(key);
        return add(key, value);
    }

    /** Removes every entry of {@code key}; whether there was one. */
    public boolean remove(final String key)
    {
        checkWritable();
        int kept = 0;
        for (int i = 0; i < size; i++)
        {
            if (keys[i].equals(key))
            {
                encodedLength -= entryLength(keys[i], values[i]);
            }
            else
            {
                keys[kept] = keys[i];
                values[kept] = values[i];
                kept++;
            }
        }
        final boolean removed = kept != size;
        keyChanged(key);
        Arrays.fill(keys, kept, size, null);
        Arrays.fill(values, kept, size, null);
        size = kept;
        return removed;
    }

    /** Removes every entry, keeping the arrays for reuse. */
    public Metadata clear()
    {
        checkWritable();
        Arrays.fill(keys, 0, size, null);
        Arrays.fill(values, 0, size, null);
        size = 0;
        encodedLength = 0;
        keyChanged(IdempotencyKeys.METADATA_KEY);
        return this;
    }

    public int size()
    {
        return size;
    }

    public boolean isEmpty()
    {
        return size == 0;
    }

    public String key(final int index)
    {
        checkIndex(index);
        return keys[index];
    }

    /** Whether entry {@code index} has a binary value (its key ends in {@value #BINARY_SUFFIX}). */
    public boolean isBinary(final int index)
    {
        return isBinaryKey(key(index));
    }

    /** The value of entry {@code index} as text (a binary value decoded as UTF-8). */
    public String text(final int index)
    {
        checkIndex(index);
        return new String(values[index], StandardCharsets.UTF_8);
    }

    /** A copy of the value of entry {@code index}, as bytes (a text value in UTF-8). */
    public byte[] bytes(final int index)
    {
        checkIndex(index);
        return values[index].clone();
    }

    /** The first text value of {@code key}, or null. */
    public String get(final String key)
    {
        final int index = indexOf(key);
        return index < 0 ? null : text(index);
    }

    /** The first binary value of {@code key} (a copy), or null. */
    public byte[] getBytes(final String key)
    {
        final int index = indexOf(key);
        return index < 0 ? null : bytes(index);
    }

    /** The index of the first entry of {@code key}, or -1. */
    public int indexOf(final String key)
    {
        for (int i = 0; i < size; i++)
        {
            if (keys[i].equals(key))
            {
                return i;
            }
        }
        return -1;
    }

    /** Bytes these entries take on the wire; what {@link Limits#maxMetadataBytes()} bounds, with the deadline. */
    public int encodedLength()
    {
        return encodedLength;
    }

    /**
     * The key of entry {@code index}, unchecked: for the wire codec ({@code protocol.CallContext}, through a private
     * lookup), which writes each entry of every message it encodes.
     */
    String keyAt(final int index)
    {
        return keys[index];
    }

    /** The encoded value of entry {@code index}, not copied (and not to be changed): for the wire codec too. */
    byte[] valueAt(final int index)
    {
        return values[index];
    }

    /** Makes metadata decoded from the wire, or handed to xio to be sent, read-only: for the wire codec too. */
    Metadata seal()
    {
        readOnly = true;
        return this;
    }

    /** Appends an entry; also for the wire codec (through a private lookup), with an entry it decoded and checked. */
    private Metadata append(final String key, final byte[] value)
    {
        if (value.length > MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException("metadata value of '" + key + "' has " + value.length +
                " bytes, more than " + MAX_VALUE_LENGTH);
        }
        if (size == keys.length)
        {
            final int capacity = Math.max(4, size * 2);
            keys = Arrays.copyOf(keys, capacity);
            values = Arrays.copyOf(values, capacity);
        }
        keys[size] = key;
        values[size] = value;
        size++;
        encodedLength += entryLength(key, value);
        keyChanged(key);
        return this;
    }

    /** An entry of {@code key} was added or removed: when it is the idempotency key's, the key is not one made here. */
    private void keyChanged(final String key)
    {
        if (keyMark != 0 && IdempotencyKeys.METADATA_KEY.equals(key))
        {
            keyMark = 0;
        }
    }

    private static int entryLength(final String key, final byte[] value)
    {
        return ENTRY_OVERHEAD + key.length() + value.length;
    }

    /** {@link #KEY_NEW}, {@link #KEY_SENT}, {@link #KEY_COPIED} or 0: for {@link IdempotencyKeys}. */
    int keyMark()
    {
        return keyMark;
    }

    /**
     * Marks the idempotency key in it as made for one call that has not sent it yet ({@link #KEY_NEW}) or that sent
     * it ({@link #KEY_SENT}): for {@link IdempotencyKeys}, after it put the key.
     */
    Metadata markKey(final int mark)
    {
        keyMark = mark;
        return this;
    }

    /** Whether the call its key was made for sends it now: the first caller only, of any thread. */
    boolean claimKey()
    {
        return KEY_MARK.compareAndSet(this, KEY_NEW, KEY_SENT);
    }

    /** Whether this is metadata that arrived (or {@link #EMPTY}), which cannot be changed. */
    public boolean isReadOnly()
    {
        return readOnly;
    }

    private void checkWritable()
    {
        if (readOnly)
        {
            throw new UnsupportedOperationException("this metadata arrived with a message and is read-only; " +
                "copy it (new Metadata(received)) to change it");
        }
    }

    private void checkIndex(final int index)
    {
        if (index < 0 || index >= size)
        {
            throw new IndexOutOfBoundsException("entry " + index + " of " + size);
        }
    }

    /** Whether values of {@code key} are binary: it ends in {@value #BINARY_SUFFIX}. */
    public static boolean isBinaryKey(final String key)
    {
        return key.endsWith(BINARY_SUFFIX);
    }

    /** Why {@code key} is not a valid key, or null. */
    public static String problemWithKey(final CharSequence key)
    {
        final int length = key.length();
        if (length == 0 || length > MAX_KEY_LENGTH)
        {
            return "a metadata key has 1 to " + MAX_KEY_LENGTH + " characters, not " + length;
        }
        for (int i = 0; i < length; i++)
        {
            final char c = key.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'))
            {
                return "metadata key '" + key + "' has the character '" + c + "' (keys are lower case: a-z 0-9 - _ .)";
            }
        }
        return null;
    }

    private static void checkKey(final String key, final boolean binary)
    {
        final String problem = problemWithKey(key);
        if (problem != null)
        {
            throw new IllegalArgumentException(problem);
        }
        if (isBinaryKey(key) != binary)
        {
            throw new IllegalArgumentException(binary ? "binary metadata key '" + key + "' must end in " +
                BINARY_SUFFIX : "text metadata key '" + key + "' must not end in " + BINARY_SUFFIX +
                " (that suffix marks binary values)");
        }
    }

    /** Keys and value sizes only: values may be credentials. */
    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("Metadata{");
        for (int i = 0; i < size; i++)
        {
            text.append(i == 0 ? "" : ", ").append(keys[i]).append(": ").append(values[i].length).append(" bytes");
        }
        return text.append('}').toString();
    }
}
