package io.xio.spring.autoconfigure;

import io.xio.spring.autoconfigure.sample.secure.client.TradesClient;
import io.xio.spring.autoconfigure.sample.secure.client.TradesClientApplication;
import io.xio.spring.autoconfigure.sample.secure.server.TradesServerApplication;
import io.xio.spring.autoconfigure.sample.securestreams.api.Orders;
import io.xio.spring.autoconfigure.sample.securestreams.client.OrdersClient;
import io.xio.spring.autoconfigure.sample.securestreams.client.OrdersClientApplication;
import io.xio.spring.autoconfigure.sample.securestreams.server.OrdersServerApplication;
import io.xio.spring.autoconfigure.sample.securestreams.server.OrdersService;
import io.xio.spring.autoconfigure.security.XioSecurityAutoConfiguration;
import io.xio.spring.client.XioAccessDeniedException;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.test.util.AopTestUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.function.Tuple2;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.XioStreamsTest.assertNoStreamOpen;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Spring Security and stream methods end to end, server and client in separate contexts over tcp: an authenticated
 * session's caller is the method's {@code SecurityContext} and rides in the Reactor context of the stream it returns,
 * on a server stream and on a bidirectional one, each stream with its own caller; and a stream method that
 * {@code @PreAuthorize} denies ends the client's {@code Flux} with the error a denied call gets, its body never run
 * and nothing left open on the server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioStreamsSecurityTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** A test given the server's context and a client of alice (a trader) and one of bob (not one). */
    @FunctionalInterface
    private interface Callers
    {
        void accept(AssertableApplicationContext server, AssertableApplicationContext alice,
            AssertableApplicationContext bob) throws Throwable;
    }

    private static ApplicationContextRunner runner(final Class<?> application, final Class<?> with)
    {
        return XioAutoConfigurationEndToEndTest.runner(application).withUserConfiguration(with)
            .withConfiguration(AutoConfigurations.of(XioSecurityAutoConfiguration.class));
    }

    private static void withCallers(final Callers test)
    {
        runner(TradesServerApplication.class, OrdersServerApplication.class)
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0").run(server ->
            {
                assertThat(server).hasNotFailed();
                final String at = "tcp://127.0.0.1:" +
                    server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
                client(at, "alice", alice -> client(at, "bob", bob -> test.accept(server, alice, bob)));
            });
    }

    private static void client(final String at, final String user,
        final ContextConsumer<AssertableApplicationContext> test)
    {
        runner(OrdersClientApplication.class, TradesClientApplication.class)
            .withPropertyValues("xio.clients.orders.uri=" + at + "/orders", "xio.clients.trades.uri=" + at + "/trades",
                "xio.client.credentials.username=" + user, "xio.client.credentials.password=" + user + "-secret")
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                test.accept(context);
            });
    }

    private static Orders orders(final AssertableApplicationContext client)
    {
        return client.getBean(OrdersClient.class);
    }

    @Test
    void eachStreamRunsAsItsSessionsCallerInTheMethodAndInItsFlux()
    {
        withCallers((server, alice, bob) ->
        {
            // More than a stream's window (1,024 messages): the rest is produced as credit returns, on the server's
            // context thread, which alice's and bob's sessions share. The caller is in each stream's Reactor context,
            // never on the threads that run it.
            final int count = 3_000;
            final Tuple2<List<String>, List<String>> fed = Mono.zip(
                orders(alice).whoAmI(count).collectList(), orders(bob).whoAmI(count).collectList()).block(WAIT);
            assertThat(fed.getT1()).containsExactlyElementsOf(Flux.just("method alice")
                .concatWith(Flux.range(0, count).map(i -> "flux alice, thread nobody")).toIterable());
            assertThat(fed.getT2()).containsExactlyElementsOf(Flux.just("method bob")
                .concatWith(Flux.range(0, count).map(i -> "flux bob, thread nobody")).toIterable());

            final Tuple2<List<String>, List<String>> confirmed = Mono.zip(
                orders(alice).confirm(Flux.range(0, count).map(i -> "a" + i)).collectList(),
                orders(bob).confirm(Flux.range(0, count).map(i -> "b" + i)).collectList()).block(WAIT);
            assertThat(confirmed.getT1()).containsExactlyElementsOf(Flux.just("method alice")
                .concatWith(Flux.range(0, count).map(i -> "a" + i + " by alice")).toIterable());
            assertThat(confirmed.getT2()).containsExactlyElementsOf(Flux.just("method bob")
                .concatWith(Flux.range(0, count).map(i -> "b" + i + " by bob")).toIterable());
        });
    }

    @Test
    void aStreamMethodSecurityDeniesEndsTheClientsFluxAsADeniedCallAndLeavesNothingOpen()
    {
        withCallers((server, alice, bob) ->
        {
            // Method security proxies the service: its counters are on the bean behind the proxy.
            final OrdersService service = AopTestUtils.getUltimateTargetObject(server.getBean(Orders.class));
            final Throwable deniedCall = catchThrowable(() -> bob.getBean(TradesClient.class).trade("gold"));
            assertThat(deniedCall).isInstanceOf(XioAccessDeniedException.class);

            final Throwable deniedFeed = catchThrowable(() -> orders(bob).book("XIO").blockLast(WAIT));
            assertDeniedAs(deniedFeed, (XioAccessDeniedException)deniedCall);

            final AtomicInteger sendingCancelled = new AtomicInteger();
            final Flux<String> endless = Flux.<String, Integer>generate(() -> 0, (i, sink) ->
            {
                sink.next("o" + i);
                return i + 1;
            }).doOnCancel(sendingCancelled::incrementAndGet);
            final Throwable deniedPlace = catchThrowable(() -> orders(bob).place(endless).blockLast(WAIT));
            assertDeniedAs(deniedPlace, (XioAccessDeniedException)deniedCall);
            // What bob streamed stopped with the stream: it is not sent into a stream that is over.
            await().atMost(WAIT).until(() -> sendingCancelled.get() == 1);

            assertThat(service.ran).as("denied before the method ran").hasValue(0);
            assertNoStreamOpen(server, "orders");

            // A trader's streams on the same server run, and a cancelled one is let go of as well.
            assertThat(orders(alice).book("XIO").take(3).collectList().block(WAIT))
                .containsExactly("XIO 0", "XIO 1", "XIO 2");
            assertThat(orders(alice).place(Flux.just("o1", "o2")).collectList().block(WAIT))
                .containsExactly("o1 placed", "o2 placed");
            await().atMost(WAIT).until(() -> service.cancelled.get() == 1);
            assertThat(service.ran).hasValue(2);
            assertNoStreamOpen(server, "orders");
        });
    }

    private static void assertDeniedAs(final Throwable denied, final XioAccessDeniedException call)
    {
        assertThat(denied).isExactlyInstanceOf(call.getClass());
        final XioAccessDeniedException stream = (XioAccessDeniedException)denied;
        assertThat(stream.code()).isEqualTo(XioErrorCode.PERMISSION_DENIED).isEqualTo(call.code());
        assertThat(stream.remoteMessage()).isEqualTo("access denied").isEqualTo(call.remoteMessage());
        assertThat(stream.remoteType()).isEqualTo(call.remoteType());
    }
}
