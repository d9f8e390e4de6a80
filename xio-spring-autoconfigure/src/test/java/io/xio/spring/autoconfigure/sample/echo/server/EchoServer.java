package io.xio.spring.autoconfigure.sample.echo.server;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.sample.echo.api.Echo;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import java.util.concurrent.CompletableFuture;

/** The echo server application: its one service answers inline on the context thread. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
@Import(EchoServer.InlineEcho.class)
public class EchoServer
{
    /** Answers at once, on the context thread. */
    @XioService(value = "echo", dispatch = XioService.Dispatch.INLINE)
    public static class InlineEcho implements Echo
    {
        @Override
        public byte[] bytes(final byte[] data)
        {
            return data;
        }

        @Override
        public CompletableFuture<byte[]> bytesAsync(final byte[] data)
        {
            return CompletableFuture.completedFuture(data);
        }

        @Override
        public String text(final String data)
        {
            return data;
        }

        @Override
        public CompletableFuture<String> textAsync(final String data)
        {
            return CompletableFuture.completedFuture(data);
        }
    }
}
