package io.xio.ledger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that stands still until a test moves it on. Thread-safe. */
final class MutableClock extends Clock
{
    private final AtomicReference<Instant> now;

    MutableClock(final Instant start)
    {
        this.now = new AtomicReference<>(start);
    }

    void advance(final Duration by)
    {
        now.updateAndGet(instant -> instant.plus(by));
    }

    @Override
    public Instant instant()
    {
        return now.get();
    }

    @Override
    public ZoneId getZone()
    {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(final ZoneId zone)
    {
        throw new UnsupportedOperationException("a test clock keeps UTC");
    }
}
