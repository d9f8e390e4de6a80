package io.xio.actuate.sample;

import io.xio.annotation.XioMethod;

import java.util.concurrent.CompletableFuture;

public interface Greeter
{
    String greet(String name);

    CompletableFuture<String> greetLater(String name);

    /** Throws IllegalStateException: declared, so its caller gets it as itself. */
    void fail(String why) throws IllegalStateException;

    @XioMethod(timeout = "200ms")
    void slow() throws InterruptedException;

    /** {@code count} greetings of {@code name}: a stream. */
    reactor.core.publisher.Flux<String> greetings(String name, int count);
}
