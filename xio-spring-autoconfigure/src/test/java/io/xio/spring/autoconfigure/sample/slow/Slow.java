package io.xio.spring.autoconfigure.sample.slow;

import java.util.concurrent.CompletableFuture;

/** A service slower than its callers: each call holds its worker until the test lets it go. */
public interface Slow
{
    String work(String label);

    CompletableFuture<String> workAsync(String label);
}
