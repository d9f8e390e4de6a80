package io.xio.spring.autoconfigure.http.shop;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioService;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import org.springframework.security.access.prepost.PreAuthorize;
import reactor.core.publisher.Flux;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** The shop: records what reached it. */
@XioService("shop")
public class ShopService implements Shop
{
    /** The notes pinged, and the items forgotten. */
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    /** How many values of {@link #count} were asked for by now. */
    private final AtomicInteger counted = new AtomicInteger();
    /** Set when a stream of {@link #count} was cancelled. */
    private final BlockingQueue<String> cancelled = new LinkedBlockingQueue<>();
    private final AtomicInteger charges = new AtomicInteger();
    private final BlockingQueue<String> hung = new LinkedBlockingQueue<>();

    /** What {@link #fail} throws. */
    static final class Coded extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Coded(final String code)
        {
            super(code);
        }
    }

    /** The notes pinged, and the items forgotten (a method: the bean is a proxy). */
    public BlockingQueue<String> received()
    {
        return received;
    }

    /** How many values of {@link #count} were asked for by now. */
    public AtomicInteger counted()
    {
        return counted;
    }

    /** The calls of {@link #hang} that started. */
    public BlockingQueue<String> hung()
    {
        return hung;
    }

    /** The streams of {@link #count} cancelled. */
    public BlockingQueue<String> cancelled()
    {
        return cancelled;
    }

    @Override
    public Order place(final String item, final int quantity, final List<String> tags)
    {
        return new Order(item, quantity, tags);
    }

    @Override
    public void forget(final String item)
    {
        received.add("forget " + item);
    }

    @Override
    public void ping(final String note)
    {
        received.add("ping " + note);
    }

    @Override
    public byte[] reverse(final byte[] data)
    {
        final byte[] reversed = new byte[data.length];
        for (int i = 0; i < data.length; i++)
        {
            reversed[i] = data[data.length - 1 - i];
        }
        return reversed;
    }

    @Override
    public ByteBuffer copy(final ByteBuffer data, final int times)
    {
        final ByteBuffer out = ByteBuffer.allocate(data.remaining() * times);
        for (int i = 0; i < times; i++)
        {
            out.put(data.duplicate());
        }
        return out.flip();
    }

    @Override
    public Flux<Integer> count(final int to)
    {
        return Flux.range(1, to).doOnRequest(n -> counted.addAndGet((int)Math.min(n, Integer.MAX_VALUE)))
            .doOnCancel(() -> cancelled.add("count " + to));
    }

    @Override
    public String slow(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return "slept " + millis;
    }

    @Override
    public String slowBounded(final long millis)
    {
        return slow(millis);
    }

    @Override
    public String fail(final String code)
    {
        throw new Coded(code);
    }

    @Override
    @PreAuthorize("hasRole('BUYER')")
    public String secret()
    {
        return "for buyers";
    }

    @Override
    public Flux<String> upload(final Flux<String> lines)
    {
        return lines;
    }

    @Override
    public java.util.concurrent.CompletableFuture<String> hang()
    {
        final java.util.concurrent.CompletableFuture<String> never = new java.util.concurrent.CompletableFuture<>();
        never.whenComplete((value, failure) -> cancelled.add("hang"));
        hung.add("hang");
        return never;
    }

    @Override
    public int charge(final int cents)
    {
        return charges.incrementAndGet();
    }

    /** How many charges ran. */
    public int charges()
    {
        return charges.get();
    }

    @XioExceptionHandler
    XioError coded(final Coded failure)
    {
        return XioError.of(XioErrorCode.valueOf(failure.getMessage()), "failed with " + failure.getMessage());
    }
}
