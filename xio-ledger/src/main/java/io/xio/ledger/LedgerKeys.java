package io.xio.ledger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.util.Base64;

/**
 * The key a call's answer is kept under in the ledger: its idempotency key within a scope, so that one key sent to
 * two operations, or by two callers, never replays one's answer to the other (an application's own keys, such as an
 * order number, are easy to reuse and to guess). The scope is what the call is (a resource and a method) and who made
 * it: the {@linkplain Principal#getName() name} of the principal its session was accepted as, none for an anonymous
 * one. Only the name, as the engine knows a principal everywhere else: a principal's class is no part of who it is
 * (a lambda's class name differs from one JVM to the next), and the key must be the same on every server and after
 * a restart, or a retry would run the call again. The ledger's key is a SHA-256 of the scope and the idempotency key,
 * 43 characters. Stateless; any thread.
 */
public final class LedgerKeys
{
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private LedgerKeys()
    {
    }

    /**
     * The ledger's key of {@code key} sent to {@code operation} (a resource, and a method where one resource has
     * several) by {@code principal} (null: an anonymous caller), known by its name alone.
     */
    public static String scoped(final String operation, final Principal principal, final String key)
    {
        final MessageDigest digest = sha256();
        update(digest, operation);
        // A prefix keeps a principal named "" apart from an anonymous caller.
        update(digest, principal == null ? "" : "principal:" + principal.getName());
        update(digest, key);
        return ENCODER.encodeToString(digest.digest());
    }

    /** Length-prefixed, so that no two different (operation, principal, key) triples hash the same bytes. */
    private static void update(final MessageDigest digest, final String part)
    {
        final byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        digest.update((byte)(bytes.length >>> 24));
        digest.update((byte)(bytes.length >>> 16));
        digest.update((byte)(bytes.length >>> 8));
        digest.update((byte)bytes.length);
        digest.update(bytes);
    }

    private static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every Java platform has SHA-256", ex);
        }
    }
}
