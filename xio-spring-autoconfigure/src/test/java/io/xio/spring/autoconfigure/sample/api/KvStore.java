package io.xio.spring.autoconfigure.sample.api;

import io.xio.annotation.XioMethod;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The shared API: the server implements it, clients extend it with {@code @XioClient}. */
public interface KvStore extends Repo<KvStore.Order>
{
    record Order(String id, int quantity, List<String> tags)
    {
    }

    String get(String key);

    void put(String key, String value);

    CompletableFuture<Integer> size();

    /** Empties the store, answered when done: a result without a value. */
    CompletableFuture<Void> clearLater();

    List<Order> orders(String customer);

    Map<String, Optional<Integer>> stock(List<String> items);

    int putBlob(String key, ByteBuffer data);

    byte[] blob(String key);

    int add(int a);

    int add(int a, int b);

    /** Throws IllegalArgumentException with the message: declared, so its caller sees both. */
    String failWith(String message) throws IllegalArgumentException;

    /** Throws an exception it does not declare: its caller sees neither its type nor its message. */

    String failStrangely();

    @XioMethod(timeout = "100ms")
    String slow();

    @XioMethod(oneWay = true)
    void fire(String event);

    @XioMethod(oneWay = true, receipt = true)
    void fireWithReceipt(String event);

    List<String> events();

    /** Returns the buffer it was given: the response is sent from the request's own memory. */
    ByteBuffer echo(ByteBuffer data);

    /** Completes only when cancelled. */
    CompletableFuture<String> hold(String id);

    /** Takes its time: for graceful shutdown. */
    String pause(int millis);
}
