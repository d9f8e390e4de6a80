package io.xio.spring.autoconfigure.http.shop;

import io.xio.annotation.XioMethod;
import reactor.core.publisher.Flux;

import java.nio.ByteBuffer;
import java.util.List;

/** The service the HTTP tests call: one method per kind of call and answer. */
public interface Shop
{
    /** An order placed. */
    record Order(String item, int quantity, List<String> tags)
    {
    }

    Order place(String item, int quantity, List<String> tags);

    void forget(String item);

    @XioMethod(oneWay = true)
    void ping(String note);

    byte[] reverse(byte[] data);

    ByteBuffer copy(ByteBuffer data, int times);

    Flux<Integer> count(int to);

    String slow(long millis);

    @XioMethod(timeout = "100ms")
    String slowBounded(long millis);

    /** Throws an exception its handler maps to {@code code}. */
    String fail(String code);

    /** Only a buyer may. */
    String secret();

    Flux<String> upload(Flux<String> lines);

    /** Never answers by itself: its future completes only when cancelled. */
    java.util.concurrent.CompletableFuture<String> hang();

    /** Runs once per idempotency key: returns how many charges ran so far. */
    @XioMethod(exactlyOnce = true)
    int charge(int cents);
}
