package io.xio.spring.autoconfigure.sample.errors.api;

import java.util.concurrent.CompletableFuture;

/** A service that fails on request, to show how its exceptions reach callers. */
public interface Accounts
{
    /** Throws the exception {@link Failures#named} names. */
    String fail(String kind);

    /** Fails its future with the exception {@link Failures#named} names. */
    CompletableFuture<String> failAsync(String kind);

    /** Throws the declared exception, or for {@code "closed"} a subtype of it. */
    String open(String name) throws AccountException;
}
