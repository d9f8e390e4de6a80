package io.xio.spring.autoconfigure.sample.errors.api;

import java.util.concurrent.atomic.AtomicInteger;

/** A subtype of the declared exception that the method does not declare itself; counts its instances. */
public class ClosedAccountException extends AccountException
{
    /** Instances made, in this JVM. */
    public static final AtomicInteger MADE = new AtomicInteger();
    private static final long serialVersionUID = 1L;

    public ClosedAccountException(final String message)
    {
        super(message);
        MADE.incrementAndGet();
    }
}
