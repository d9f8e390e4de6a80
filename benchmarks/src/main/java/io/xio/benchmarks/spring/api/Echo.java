package io.xio.benchmarks.spring.api;

import java.util.concurrent.CompletableFuture;

/** The benchmark's service: data as a segment (bytes) or through the codec (text). */
public interface Echo
{
    byte[] bytes(byte[] data);

    String text(String data);

    CompletableFuture<byte[]> bytesAsync(byte[] data);
}
