package io.xio.benchmarks.spring.server;

import io.xio.annotation.XioService;
import io.xio.benchmarks.spring.api.Echo;

import java.util.concurrent.CompletableFuture;

/** Answers at once on the context thread, as the raw engine's echo does, so only the Spring layer differs. */
@XioService(value = "echo", dispatch = XioService.Dispatch.INLINE)
public class EchoService implements Echo
{
    @Override
    public byte[] bytes(final byte[] data)
    {
        return data;
    }

    @Override
    public String text(final String data)
    {
        return data;
    }

    @Override
    public CompletableFuture<byte[]> bytesAsync(final byte[] data)
    {
        return CompletableFuture.completedFuture(data);
    }
}
