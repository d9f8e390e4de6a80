package io.xio.actuate.sample;

import io.xio.annotation.XioMethod;

import java.util.concurrent.CompletableFuture;

public interface Greeter
{
    String greet(String name);

    CompletableFuture<String> greetLater(String name);

    void fail(String why);

    @XioMethod(timeout = "200ms")
    void slow() throws InterruptedException;
}
