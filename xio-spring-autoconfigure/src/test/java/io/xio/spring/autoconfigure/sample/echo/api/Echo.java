package io.xio.spring.autoconfigure.sample.echo.api;

import java.util.concurrent.CompletableFuture;

/** A service that hands back what it is given: data as a segment, text through the codec. */
public interface Echo
{
    byte[] bytes(byte[] data);

    CompletableFuture<byte[]> bytesAsync(byte[] data);

    String text(String data);

    CompletableFuture<String> textAsync(String data);
}
