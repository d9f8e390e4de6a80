package io.xio.spring.autoconfigure.sample.server;

import io.xio.spring.autoconfigure.sample.api.KvStore;

import io.xio.annotation.XioService;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** The service side of {@link KvStore}. */
@XioService("kv")
public class KvStoreImpl implements KvStore
{
    private final Map<String, String> values = new ConcurrentHashMap<>();
    private final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    /** An exception the caller cannot recreate: no constructor taking a message. */
    public static final class Odd extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public Odd(final int code)
        {
            super("odd " + code);
        }
    }

    private final Map<String, Order> saved = new ConcurrentHashMap<>();

    @Override
    public void save(final String id, final Order value)
    {
        saved.put(id, value);
    }

    @Override
    public Order load(final String id)
    {
        return saved.get(id);
    }

    @Override
    public String get(final String key)
    {
        return values.get(key);
    }

    @Override
    public void put(final String key, final String value)
    {
        values.put(key, value);
    }

    @Override
    public CompletableFuture<Integer> size()
    {
        return CompletableFuture.supplyAsync(values::size);
    }

    @Override
    public CompletableFuture<Void> clearLater()
    {
        values.clear();
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public List<Order> orders(final String customer)
    {
        return List.of(new Order(customer + "-1", 3, List.of("a", "b")), new Order(customer + "-2", 1, List.of()));
    }

    @Override
    public Map<String, Optional<Integer>> stock(final List<String> items)
    {
        return items.stream().collect(Collectors.toMap(i -> i,
            i -> i.startsWith("x") ? Optional.<Integer>empty() : Optional.of(i.length())));
    }

    @Override
    public int putBlob(final String key, final ByteBuffer data)
    {
        final byte[] copy = new byte[data.remaining()];
        data.duplicate().get(copy);
        blobs.put(key, copy);
        return copy.length;
    }

    @Override
    public byte[] blob(final String key)
    {
        return blobs.get(key);
    }

    @Override
    public int add(final int a)
    {
        return a + 1;
    }

    @Override
    public int add(final int a, final int b)
    {
        return a + b;
    }

    @Override
    public String failWith(final String message)
    {
        throw new IllegalArgumentException(message);
    }

    @Override
    public String failStrangely()
    {
        throw new Odd(7);
    }

    @Override
    public String slow()
    {
        try
        {
            new CountDownLatch(1).await(2, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return "late";
    }

    @Override
    public void fire(final String event)
    {
        events.add(event);
    }

    @Override
    public void fireWithReceipt(final String event)
    {
        events.add(event);
    }

    @Override
    public List<String> events()
    {
        return List.copyOf(events);
    }

    /** Futures handed out by {@link #hold}, by id, for tests to watch. */
    public static final Map<String, CompletableFuture<String>> HELD = new ConcurrentHashMap<>();
    /** Counts down when {@link #pause} starts. */
    public static volatile CountDownLatch pausing = new CountDownLatch(1);

    @Override
    public ByteBuffer echo(final ByteBuffer data)
    {
        return data;
    }

    @Override
    public CompletableFuture<String> hold(final String id)
    {
        final CompletableFuture<String> future = new CompletableFuture<>();
        HELD.put(id, future);
        return future;
    }

    @Override
    public String pause(final int millis)
    {
        pausing.countDown();
        try
        {
            new CountDownLatch(1).await(millis, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return "paused " + millis;
    }
}
