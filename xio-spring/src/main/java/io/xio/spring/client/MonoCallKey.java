package io.xio.spring.client;

import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The idempotency key of one {@code Mono} a client proxy returned for an exactly-once method: made with the Mono and
 * carried by every subscription to it, so that a Mono subscribed again ({@code retry}, {@code retryWhen},
 * {@code repeat}, a second {@code block()}) is the same call tried again, which a server keeping an execution ledger
 * runs at most once; a new call is a new Mono ({@code Mono.defer} of the proxy's method for one per subscription).
 * The first subscription sends the key as one its client made for the call, which a ledger records in one statement;
 * a later one as a key that may have been sent before, saying as many attempts went before as subscriptions did (at
 * least that many did). Thread-safe: a Mono may be subscribed from any thread, several times at once.
 */
final class MonoCallKey
{
    /** The first subscription's metadata: a key made for the call, marked as such ({@link IdempotencyKeys}). */
    private final Metadata first = IdempotencyKeys.forFirstAttempt(null);
    private final String key = IdempotencyKeys.of(first);
    private final AtomicInteger subscriptions = new AtomicInteger();

    /** The metadata the next subscription's call starts with, which its tracer and interceptors add to. */
    Metadata next()
    {
        final int before = subscriptions.getAndIncrement();
        if (before == 0)
        {
            return first;
        }
        return new Metadata().put(IdempotencyKeys.METADATA_KEY, key)
            .put(IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY, Integer.toString(before));
    }
}
