package io.xio.spring.autoconfigure.sample.hops.api;

/** The middle of a chain of calls: calls {@link LastHop} while serving its own caller. */
public interface FirstHop
{
    /**
     * The milliseconds its caller waits, then what {@link LastHop#last} answered, space-separated; an interceptor
     * refuses a caller without a tenant with a SecurityException.
     */
    String first(String what) throws SecurityException;

    /** Waits until its caller's deadline has passed, then tries to call {@link LastHop}. */
    String afterTheDeadline(String what);
}
