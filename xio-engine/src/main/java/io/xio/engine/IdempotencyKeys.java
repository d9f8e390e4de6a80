package io.xio.engine;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The identity of an exactly-once call that outlives its session: an idempotency key carried in the call's
 * metadata ({@value #METADATA_KEY}), the same on every attempt and every server the call visits, and how many
 * attempts went before this one ({@value #PREVIOUS_ATTEMPTS_KEY}). A server that keeps an execution ledger runs a
 * call once per key, whatever server each attempt reaches. The client makes a key per call ({@link #next()}) unless
 * the application set its own, as payment APIs let callers do.
 *
 * <p>The attempts entry is absent only on the first attempt of a key the client made for that call: the one attempt
 * that cannot meet an earlier run of its key, so a ledger may skip looking the key up before running it
 * ({@link #firstUse}). An application's own key may have been sent before (by an earlier process, say), so its first
 * attempt carries {@code 0}. A peer that lies costs itself work, never a second run: the ledger's unique key still
 * refuses the second commit.
 *
 * <p>A key made for a call is that call's only: the same metadata sent again, or a copy of it, by another call goes
 * without it (an exactly-once call gets a new key), since that may be another operation whose answer a ledger must
 * not replay. To send a call again with its key, as after a {@link ConnectionException} whose
 * {@link ConnectionException#mayHaveRun()} is true, send {@link #forRetry} of the metadata it sent. Any thread.
 */
public final class IdempotencyKeys
{
    /** The metadata entry carrying a call's idempotency key. */
    public static final String METADATA_KEY = "xio-idempotency-key";
    /** The metadata entry saying how many attempts of the call went before this one; absent on the first. */
    public static final String PREVIOUS_ATTEMPTS_KEY = "xio-previous-attempts";
    /** Longest key, in characters. */
    public static final int MAX_LENGTH = 128;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    /** Random per process start, so keys of different clients and of restarts differ. */
    private static final byte[] PREFIX = new byte[10];
    private static final AtomicLong COUNTER = new AtomicLong();

    static
    {
        new SecureRandom().nextBytes(PREFIX);
    }

    private IdempotencyKeys()
    {
    }

    /** A new key: 80 random bits fixed at this process's start, then a 48-bit counter (22 characters). */
    public static String next()
    {
        final long count = COUNTER.getAndIncrement();
        final byte[] bytes = new byte[16];
        System.arraycopy(PREFIX, 0, bytes, 0, PREFIX.length);
        for (int i = 0; i < 6; i++)
        {
            bytes[PREFIX.length + i] = (byte)(count >>> (8 * (5 - i)));
        }
        return ENCODER.encodeToString(bytes);
    }

    /**
     * {@code key} if it is a valid key: 1 to {@value #MAX_LENGTH} characters of {@code A-Z a-z 0-9 - _ . :}.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static String check(final String key)
    {
        if (key.isEmpty() || key.length() > MAX_LENGTH)
        {
            throw new IllegalArgumentException("an idempotency key has 1 to " + MAX_LENGTH + " characters, this one " +
                key.length());
        }
        for (int i = 0; i < key.length(); i++)
        {
            final char c = key.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' ||
                c == '.' || c == ':'))
            {
                throw new IllegalArgumentException("an idempotency key has only A-Z a-z 0-9 - _ . : in it, " +
                    "not '" + c + "' (at " + i + ")");
            }
        }
        return key;
    }

    /**
     * The idempotency key {@code metadata} carries, or null when it carries none.
     *
     * @throws IllegalArgumentException when the key it carries is not a valid one ({@link #check})
     */
    public static String of(final Metadata metadata)
    {
        final String key = metadata.get(METADATA_KEY);
        return key == null ? null : check(key);
    }

    /**
     * The metadata the first attempt of an exactly-once call sends, from the metadata its application gave it
     * ({@code metadata}, null for none): when that carries the application's own key, itself if it says its previous
     * attempts, else a copy saying 0 (the key may have been sent before); else a copy carrying a new key
     * ({@link #next()}) and no attempts entry, marked as made for this one call. A session does this for a call sent
     * with {@link CallOptions#exactlyOnce()}; a client that sends a call's attempts itself may call it for the first
     * (a {@code ServiceClient} does), then sends each later attempt with {@link #forRetry}.
     *
     * <p>A key made here belongs to its call: another call that sends the same metadata (the same message sent
     * again, say) or a copy of it sends a new key instead, or none when it is not exactly-once; a marked metadata not
     * sent yet is returned as it is. Any thread.
     *
     * @throws IllegalArgumentException when the application's key or attempts entry is not valid
     */
    public static Metadata forFirstAttempt(final Metadata metadata)
    {
        final int mark = metadata == null ? 0 : metadata.keyMark();
        if (mark == Metadata.KEY_NEW)
        {
            return metadata;
        }
        final Metadata own = mark != 0 ? withoutKey(metadata) : metadata;
        if (own == null || of(own) == null)
        {
            final Metadata made = own == null ? new Metadata() : own == metadata ? new Metadata(own) : own;
            made.remove(PREVIOUS_ATTEMPTS_KEY); // no attempt of a new key went before
            return made.put(METADATA_KEY, next()).markKey(Metadata.KEY_NEW);
        }
        if (firstUse(own))
        {
            return new Metadata(own).put(PREVIOUS_ATTEMPTS_KEY, "0");
        }
        previousAttempts(own);
        return own;
    }

    /**
     * The metadata a later attempt of an exactly-once call sends: a copy of {@code sent}, what an earlier attempt
     * sent (its message's {@link Outbound#metadata()} after the call), with the same key and
     * {@value #PREVIOUS_ATTEMPTS_KEY} saying {@code previousAttempts}, which the session that sends it takes as that
     * call's key. This is how an application sends again a call that failed with a {@link ConnectionException} whose
     * {@link ConnectionException#mayHaveRun()} is true (on any session: {@code msg.sameData().metadata(
     * IdempotencyKeys.forRetry(msg.metadata(), 1))}), so that a server keeping an execution ledger runs it once: the
     * metadata itself sent again, or a copy of it, gets a new key. A {@code ServiceClient} does this for its
     * attempts. Any thread.
     *
     * @param previousAttempts how many attempts of the call went before this one (at least 0)
     * @throws IllegalArgumentException when {@code sent} carries no valid key, or {@code previousAttempts} is negative
     */
    public static Metadata forRetry(final Metadata sent, final int previousAttempts)
    {
        if (sent == null || of(sent) == null)
        {
            throw new IllegalArgumentException("the metadata carries no idempotency key to send again: was the call " +
                "sent with CallOptions.withExactlyOnce(true)?");
        }
        if (previousAttempts < 0)
        {
            throw new IllegalArgumentException("previous attempts cannot be negative: " + previousAttempts);
        }
        final Metadata retry = new Metadata(sent).put(PREVIOUS_ATTEMPTS_KEY, Integer.toString(previousAttempts));
        // A key made for the call is again this call's to send; the application's stays the application's.
        return retry.keyMark() == 0 ? retry : retry.markKey(Metadata.KEY_NEW);
    }

    /**
     * The metadata a call sends, from what its message carried before its client interceptors ran ({@code given})
     * and after ({@code metadata}): {@link #forFirstAttempt} for an exactly-once call (and the key it makes counts as
     * sent from now on); for another, the metadata itself, without a key made for an earlier call. An interceptor's
     * copy of {@code given} keeps the key made for this call, and counts as sent. The same instance when nothing
     * changes, as for every call that is not exactly-once and carries no key made here: no allocation then. For the
     * session layer, through a private lookup. Any thread.
     */
    static Metadata forCall(final Metadata given, final Metadata metadata, final boolean exactlyOnce)
    {
        Metadata own = metadata;
        if (metadata != null && metadata.keyMark() != 0)
        {
            if (metadata.claimKey() || metadata != given && copyOfOwn(given, metadata))
            {
                return metadata; // the first send of the key made for this call (by its client, say)
            }
            own = withoutKey(metadata); // a key made for another call
        }
        if (!exactlyOnce)
        {
            return own;
        }
        final Metadata sent = forFirstAttempt(own);
        sent.claimKey();
        return sent;
    }

    /**
     * Whether {@code copy} is a copy of {@code given} (made by a client interceptor) carrying the key made for this
     * call, not sent yet: then the key is sent with the copy, and with neither again.
     */
    private static boolean copyOfOwn(final Metadata given, final Metadata copy)
    {
        if (copy.keyMark() != Metadata.KEY_COPIED || given == null || given.keyMark() != Metadata.KEY_NEW ||
            !Objects.equals(given.get(METADATA_KEY), copy.get(METADATA_KEY)) || !given.claimKey())
        {
            return false;
        }
        copy.markKey(Metadata.KEY_SENT);
        return true;
    }

    /** A copy of {@code metadata} without its key or attempts entry. */
    private static Metadata withoutKey(final Metadata metadata)
    {
        final Metadata copy = new Metadata(metadata);
        copy.remove(METADATA_KEY);
        copy.remove(PREVIOUS_ATTEMPTS_KEY);
        return copy;
    }

    /** Whether {@code metadata} says this is the first use of a key its client made (no attempts entry). */
    public static boolean firstUse(final Metadata metadata)
    {
        return metadata.get(PREVIOUS_ATTEMPTS_KEY) == null;
    }

    /** How many attempts of the call went before the one that carries {@code metadata}: 0 when not said. */
    public static int previousAttempts(final Metadata metadata)
    {
        final String value = metadata.get(PREVIOUS_ATTEMPTS_KEY);
        if (value == null)
        {
            return 0;
        }
        try
        {
            return Math.max(0, Integer.parseInt(value));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(PREVIOUS_ATTEMPTS_KEY + " is not a number: '" + value + "'", ex);
        }
    }
}
