package io.xio.actuate.sample;

import io.xio.annotation.XioService;

import java.util.concurrent.CompletableFuture;

@XioService("greeter")
public class GreeterService implements Greeter
{
    @Override
    public String greet(final String name)
    {
        return "hello " + name;
    }

    @Override
    public CompletableFuture<String> greetLater(final String name)
    {
        return CompletableFuture.completedFuture("later " + name);
    }

    @Override
    public void fail(final String why)
    {
        throw new IllegalStateException(why);
    }

    @Override
    public reactor.core.publisher.Flux<String> greetings(final String name, final int count)
    {
        return reactor.core.publisher.Flux.range(0, count).map(i -> "hello " + name + " " + i);
    }

    @Override
    public void slow() throws InterruptedException
    {
        Thread.sleep(1_000);
    }
}
