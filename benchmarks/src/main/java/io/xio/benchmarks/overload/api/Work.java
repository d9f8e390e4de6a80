package io.xio.benchmarks.overload.api;

import java.util.concurrent.CompletableFuture;

/** The overloaded service: each call costs about 2.5 ms on a pool of one thread, so about 400 calls/s. */
public interface Work
{
    CompletableFuture<byte[]> work(byte[] payload);
}
