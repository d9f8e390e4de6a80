package io.xio.spring.autoconfigure.sample.hops.api;

/** The end of a chain of calls: says what it saw of its caller's call. */
public interface LastHop
{
    /** {@code what}, the milliseconds its caller still waited, and the caller's tenant, space-separated. */
    String last(String what);
}
