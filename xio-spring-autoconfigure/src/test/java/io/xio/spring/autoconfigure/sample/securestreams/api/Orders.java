package io.xio.spring.autoconfigure.sample.securestreams.api;

import reactor.core.publisher.Flux;

/** A service of streams, some of them for traders only: who the caller is, as a stream method sees it. */
public interface Orders
{
    /**
     * The caller as the method saw it ({@code "method alice"}), then {@code count} times as its {@code Flux} sees it
     * while it runs, in its Reactor context and on its thread ({@code "flux alice, thread nobody"}): server
     * streaming.
     */
    Flux<String> whoAmI(int count);

    /**
     * The caller as the method saw it, then each order sent back with the caller as the operators on the streamed
     * parameter see it ({@code "o1 by alice"}): bidirectional.
     */
    Flux<String> confirm(Flux<String> orders);

    /** Traders only: the order book of {@code symbol}, for ever (server streaming). */
    Flux<String> book(String symbol);

    /** Traders only: each order placed (bidirectional). */
    Flux<String> place(Flux<String> orders);
}
