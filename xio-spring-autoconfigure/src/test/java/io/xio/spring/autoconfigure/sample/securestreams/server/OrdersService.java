package io.xio.spring.autoconfigure.sample.securestreams.server;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.sample.securestreams.api.Orders;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicInteger;

/** The orders service: counts how often its traders-only methods ran and their books were cancelled. */
@XioService("orders")
public class OrdersService implements Orders
{
    /** Times a traders-only method's body ran: never for a caller method security denied. */
    public final AtomicInteger ran = new AtomicInteger();
    /** Books whose subscriber cancelled them. */
    public final AtomicInteger cancelled = new AtomicInteger();

    @Override
    public Flux<String> whoAmI(final int count)
    {
        return Flux.just("method " + caller()).concatWith(Flux.range(0, count).concatMap(i -> reactiveCaller())
            .map(name -> "flux " + name + ", thread " + caller()));
    }

    @Override
    public Flux<String> confirm(final Flux<String> orders)
    {
        return Flux.just("method " + caller()).concatWith(orders.concatMap(order -> reactiveCaller()
            .map(name -> order + " by " + name)));
    }

    @Override
    @PreAuthorize("hasRole('trader')")
    public Flux<String> book(final String symbol)
    {
        ran.incrementAndGet();
        return Flux.<String, Long>generate(() -> 0L, (seq, sink) ->
        {
            sink.next(symbol + " " + seq);
            return seq + 1;
        }).doOnCancel(cancelled::incrementAndGet);
    }

    @Override
    @PreAuthorize("hasRole('trader')")
    public Flux<String> place(final Flux<String> orders)
    {
        ran.incrementAndGet();
        return orders.map(order -> order + " placed");
    }

    /** Who the method runs as: its thread's security context ("nobody" when it has none). */
    private static String caller()
    {
        final Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        return authentication == null ? "nobody" : authentication.getName();
    }

    /** Who the stream runs as: the security context in its Reactor context (empty, and so no message, without). */
    private static Mono<String> reactiveCaller()
    {
        return ReactiveSecurityContextHolder.getContext().map(context -> context.getAuthentication().getName());
    }
}
