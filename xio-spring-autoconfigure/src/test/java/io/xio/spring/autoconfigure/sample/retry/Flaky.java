package io.xio.spring.autoconfigure.sample.retry;

import io.xio.annotation.XioMethod;

import java.util.concurrent.CompletableFuture;

/** A service whose server may go away in the middle of a call: reads are idempotent, writes are not. */
public interface Flaky
{
    @XioMethod(idempotent = true)
    String read(String key);

    @XioMethod(idempotent = true)
    CompletableFuture<String> readAsync(String key);

    String write(String key);

    CompletableFuture<String> writeAsync(String key);
}
