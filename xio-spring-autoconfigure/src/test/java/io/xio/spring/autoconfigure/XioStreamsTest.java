package io.xio.spring.autoconfigure;

import io.xio.engine.XioEngine;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.autoconfigure.sample.streams.api.Quote;
import io.xio.spring.autoconfigure.security.XioSecurityAutoConfiguration;
import io.xio.spring.autoconfigure.sample.streams.api.Quotes;
import io.xio.spring.autoconfigure.sample.streams.client.QuotesClient;
import io.xio.spring.autoconfigure.sample.streams.client.QuotesClientApplication;
import io.xio.spring.autoconfigure.sample.streams.server.QuotesServerApplication;
import io.xio.spring.autoconfigure.sample.streams.server.QuotesService;
import io.xio.spring.client.XioRemoteException;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Stream methods of {@code @XioService} / {@code @XioClient} interfaces, over tcp: every shape ({@code Flux} results,
 * {@code Flux} parameters, both, {@code Mono}; {@code Publisher}s in place of each {@code Flux}), data messages, the
 * consumer's pace reaching the service, cancel and deadline stopping the service's {@code Flux}, failures mapped by
 * the service's handlers, interceptors and the security context on both sides, and one recorded call per stream with
 * its messages counted.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XioStreamsTest
{
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** A test given the server's and the client's application contexts. */
    @FunctionalInterface
    private interface Both
    {
        void accept(AssertableApplicationContext server, AssertableApplicationContext client) throws Throwable;
    }

    private static void withClient(final UnaryOperator<ApplicationContextRunner> client, final Both test)
    {
        withClient(UnaryOperator.identity(), client, test);
    }

    private static void withClient(final UnaryOperator<ApplicationContextRunner> serverSide,
        final UnaryOperator<ApplicationContextRunner> client, final Both test)
    {
        serverSide.apply(runner(QuotesServerApplication.class))
            .withConfiguration(AutoConfigurations.of(XioSecurityAutoConfiguration.class))
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
            "xio.server.error.include-message=always").run(server ->
            {
                assertThat(server).hasNotFailed();
                final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
                client.apply(runner(QuotesClientApplication.class)
                    .withPropertyValues("xio.clients.quotes.uri=tcp://127.0.0.1:" + port + "/quotes",
                        "xio.clients.mismatched.uri=tcp://127.0.0.1:" + port + "/quotes"))
                    .run(context ->
                    {
                        assertThat(context).hasNotFailed();
                        test.accept(server, context);
                    });
            });
    }

    private static void withClient(final ContextConsumer<AssertableApplicationContext> test)
    {
        withClient(UnaryOperator.identity(), (server, client) -> test.accept(client));
    }

    @Test
    void aServerStreamArrivesWholeAndInOrder()
    {
        withClient(client ->
        {
            final List<Quote> quotes = client.getBean(QuotesClient.class).feed("XIO", 20_000).collectList()
                .block(WAIT);
            assertThat(quotes).hasSize(20_000);
            assertThat(quotes).extracting(Quote::seq).containsExactlyElementsOf(
                IntStream.range(0, 20_000).mapToObj(i -> (long)i).toList());
            assertThat(quotes.get(7)).isEqualTo(new Quote("XIO", 7, 107));
            // Cold: each subscription is a stream of its own.
            assertThat(client.getBean(QuotesClient.class).feed("XIO", 3).count().block(WAIT)).isEqualTo(3);
        });
    }

    @Test
    void aClientStreamAndABidirectionalStreamCarryEveryMessage()
    {
        withClient(client ->
        {
            final Quotes quotes = client.getBean(QuotesClient.class);
            final Flux<Quote> sent = Flux.range(0, 10_000).map(i -> new Quote("S", i, 1.5));
            assertThat(quotes.total(sent).block(WAIT)).isEqualTo(15_000.0);
            assertThat(quotes.total(Flux.empty()).block(WAIT)).isEqualTo(0.0);

            final List<Quote> doubled = quotes.doubled(sent).collectList().block(WAIT);
            assertThat(doubled).hasSize(10_000).allSatisfy(q -> assertThat(q.price()).isEqualTo(3.0));
            assertThat(doubled).extracting(Quote::seq).isSorted();

            assertThat(quotes.last("L").block(WAIT)).isEqualTo(new Quote("L", 41, 42));
        });
    }

    @Test
    void publishersAsResultsAndParametersCarryEveryMessageAndTheirCancel()
    {
        withClient(UnaryOperator.identity(), (server, client) ->
        {
            final QuotesService service = server.getBean(QuotesService.class);
            final Quotes quotes = client.getBean(QuotesClient.class);
            final List<Long> inOrder = LongStream.range(0, 5_000).boxed().toList();
            assertThat(Flux.from(quotes.published("P", 5_000)).collectList().block(WAIT))
                .extracting(Quote::seq).containsExactlyElementsOf(inOrder);

            // Parameters that are Publishers and no Flux, sent as the service asks for them.
            final Publisher<Quote> sent = QuotesService.plain(Flux.range(0, 5_000).map(i -> new Quote("S", i, 1.5)));
            assertThat(quotes.totalPublished(sent).block(WAIT)).isEqualTo(7_500.0);
            final List<Quote> doubled = Flux.from(quotes.doubledPublished(sent)).collectList().block(WAIT);
            assertThat(doubled).extracting(Quote::seq).containsExactlyElementsOf(inOrder);
            assertThat(doubled).allSatisfy(q -> assertThat(q.price()).isEqualTo(3.0));

            // Cancelling the result cancels the service's Publisher, and the client's streamed one with it; in both
            // directions at once, the service's Publisher is cancelled too, not failed by its streamed parameter.
            assertThat(Flux.from(quotes.published("C", -1)).take(5).collectList().block(WAIT)).hasSize(5);
            await().atMost(WAIT).until(() -> service.cancelled.get() == 1);
            final AtomicInteger sendingCancelled = new AtomicInteger();
            final Publisher<Quote> endless = QuotesService.plain(Flux.<Quote, Long>generate(() -> 0L, (seq, sink) ->
            {
                sink.next(new Quote("E", seq, 1));
                return seq + 1;
            }).doOnCancel(sendingCancelled::incrementAndGet));
            assertThat(Flux.from(quotes.doubledPublished(endless)).take(3).collectList().block(WAIT))
                .extracting(Quote::seq).containsExactly(0L, 1L, 2L);
            await().atMost(WAIT).until(() -> sendingCancelled.get() == 1);
            await().atMost(WAIT).until(() -> service.cancelled.get() == 2);
            assertNoStreamOpen(server, "quotes");
        });
    }

    /** The service {@code resource} and the server's engine hold no stream any more (the engine's once acked). */
    static void assertNoStreamOpen(final AssertableApplicationContext server, final String resource)
    {
        final io.xio.spring.service.ServiceDispatcher service = server.getBean(XioServiceExporter.class).services()
            .stream().filter(s -> s.resource().equals(resource)).findFirst().orElseThrow();
        await().atMost(WAIT).until(() -> service.streaming() == 0);
        await().atMost(WAIT).until(() -> server.getBean(XioEngine.class).openStreams() == 0);
    }

    @Test
    void dataMessagesTravelAsTheyWereSent()
    {
        withClient(client ->
        {
            final List<byte[]> chunks = client.getBean(QuotesClient.class).chunks(40, 100_000).collectList()
                .block(WAIT);
            assertThat(chunks).hasSize(40);
            for (int i = 0; i < chunks.size(); i++)
            {
                final byte fill = (byte)i;
                assertThat(chunks.get(i)).hasSize(100_000);
                assertThat(chunks.get(i)[0]).isEqualTo(fill);
                assertThat(chunks.get(i)[99_999]).isEqualTo(fill);
            }
        });
    }

    @Test
    void aDataArgumentOutlivesTheOpeningMessageForAsLongAsTheStreamRuns()
    {
        withClient(client ->
        {
            final byte[] blob = new byte[4 * 65_536];
            for (int i = 0; i < blob.length; i++)
            {
                blob[i] = (byte)(i / 65_536 + 1);
            }
            // Slow enough that many other messages go through the receive buffers the opening message came in.
            final List<java.nio.ByteBuffer> parts = client.getBean(QuotesClient.class)
                .split(java.nio.ByteBuffer.wrap(blob), 4).delayElements(Duration.ofMillis(20)).collectList()
                .block(WAIT);
            assertThat(parts).hasSize(4);
            for (int i = 0; i < 4; i++)
            {
                final java.nio.ByteBuffer part = parts.get(i);
                assertThat(part.remaining()).isEqualTo(65_536);
                final byte fill = (byte)(i + 1);
                assertThat(part.get(0)).isEqualTo(fill);
                assertThat(part.get(65_535)).isEqualTo(fill);
            }
        });
    }

    @Test
    void aMessageTheServiceCannotDecodeEndsTheStreamAsABadArgument()
    {
        withClient(client ->
        {
            final io.xio.spring.autoconfigure.sample.streams.client.MismatchedQuotesClient mismatched =
                client.getBean(io.xio.spring.autoconfigure.sample.streams.client.MismatchedQuotesClient.class);
            assertThatThrownBy(() -> mismatched.total(Flux.just("not", "quotes")).block(WAIT))
                .isInstanceOfSatisfying(XioRemoteException.class,
                    ex -> assertThat(ex.code()).isEqualTo(XioErrorCode.INVALID_ARGUMENT));
            // A method whose answer does not carry the bad input's error: the stream is cancelled, not left open.
            assertThatThrownBy(() -> mismatched.ignoring(Flux.just("not", "quotes")).block(WAIT))
                .isInstanceOf(io.xio.engine.RequestCancelledException.class);
        });
    }

    @Test
    void aConsumerThatRequestsOneSlowsTheServiceToItsWindowAndItsCancelStopsIt()
    {
        withClient(UnaryOperator.identity(), (server, client) ->
        {
            final QuotesService service = server.getBean(QuotesService.class);
            final List<Quote> seen = new CopyOnWriteArrayList<>();
            final BaseSubscriber<Quote> one = new BaseSubscriber<>()
            {
                @Override
                protected void hookOnSubscribe(final Subscription subscription)
                {
                    subscription.request(1);
                }

                @Override
                protected void hookOnNext(final Quote value)
                {
                    seen.add(value);
                }
            };
            client.getBean(QuotesClient.class).endless("E").subscribe(one);
            await().atMost(WAIT).until(() -> seen.size() == 1);
            // The service produced what the stream's window (1,024 messages) and the prefetch ahead of it let
            // through, then stopped: no more, however long the consumer takes.
            await().atMost(WAIT).until(() -> service.produced.get() > 0);
            final long producedOnce = settled(service);
            assertThat(producedOnce).isBetween(1L, 1024L + 32);
            assertThat(seen).hasSize(1);

            one.cancel();
            await().atMost(WAIT).until(() -> service.cancelled.get() == 1);
        });
    }

    /** What the service produced once it stopped producing (nothing new for 300 ms). */
    private static long settled(final QuotesService service) throws InterruptedException
    {
        long before;
        long now = service.produced.get();
        do
        {
            before = now;
            Thread.sleep(300);
            now = service.produced.get();
        }
        while (now != before);
        return now;
    }

    @Test
    void aDrainWaitsForTheOpenStreamsAndTakesNoNewOnes()
    {
        withClient(UnaryOperator.identity(), (server, client) ->
        {
            final Quotes quotes = client.getBean(QuotesClient.class);
            final io.xio.spring.service.ServiceDispatcher service = server.getBean(XioServiceExporter.class)
                .services().stream().filter(s -> s.resource().equals("quotes")).findFirst().orElseThrow();
            final reactor.core.Disposable open = quotes.endless("O").limitRate(1).subscribe();
            await().atMost(WAIT).until(() -> service.streaming() == 1);

            final java.util.concurrent.CompletableFuture<Void> drained = service.drain();
            assertThatThrownBy(() -> quotes.feed("N", 1).blockLast(WAIT))
                .isInstanceOf(java.util.concurrent.RejectedExecutionException.class)
                .hasMessageContaining("shutting down");
            assertThat(drained).isNotDone();

            open.dispose();
            assertThat(drained).succeedsWithin(WAIT);
            assertThat(service.streaming()).isZero();
        });
    }

    @Test
    void takingSomeCancelsTheRestAndTheDeadlineEndsAStreamWithATimeout()
    {
        withClient(UnaryOperator.identity(), (server, client) ->
        {
            final QuotesService service = server.getBean(QuotesService.class);
            final Quotes quotes = client.getBean(QuotesClient.class);
            assertThat(quotes.endless("T").take(5).collectList().block(WAIT)).hasSize(5);
            await().atMost(WAIT).until(() -> service.cancelled.get() == 1);

            assertThatThrownBy(() -> quotes.endlessWithDeadline("D").blockLast(WAIT))
                .isInstanceOf(XioTimeoutException.class);
        });
    }

    @Test
    void aStreamThatFailsReachesTheCallerAsTheServicesHandlerMappedItAfterItsMessages()
    {
        withClient(client ->
        {
            final List<Quote> before = new CopyOnWriteArrayList<>();
            final Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() ->
                client.getBean(QuotesClient.class).failing("overdrawn", 3).doOnNext(before::add).blockLast(WAIT));
            assertThat(before).hasSize(3);
            assertThat(failure).isExactlyInstanceOf(XioRemoteException.class);
            assertThat(((XioRemoteException)failure).code()).isEqualTo(XioErrorCode.RESOURCE_EXHAUSTED);
            assertThat(((XioRemoteException)failure).remoteMessage()).isEqualTo("overdrawn by 5");

            assertThatThrownBy(() -> client.getBean(QuotesClient.class).failing("broken", 0).blockLast(WAIT))
                .isInstanceOf(XioRemoteException.class).hasMessageContaining("broken");
        });
    }

    @Test
    void interceptorsAndTheSecurityContextApplyToStreams()
    {
        withClient(client ->
        {
            // The client's interceptor adds the tenant; the service sees it, and its session's user in the
            // Reactor context while its Flux runs, after the method returned.
            assertThat(client.getBean(QuotesClient.class).whoAmI().collectList().block(WAIT))
                .containsExactly("tenant acme", "user anonymous");
        });
        // Without the tenant, the server's interceptor refuses the stream before the method runs.
        withClient(client -> client.withPropertyValues("quotes.tenant=false"), (server, client) ->
            assertThatThrownBy(() -> client.getBean(QuotesClient.class).feed("X", 1).blockLast(WAIT))
                .isInstanceOf(XioRemoteException.class).hasMessageContaining("no tenant"));
    }

    @Test
    void eachStreamIsRecordedOnceWithItsMessagesCounted()
    {
        final StreamRecords records = new StreamRecords();
        withClient(client -> client.withBean(XioInstrumentation.class, () -> records), (server, client) ->
        {
            final Quotes quotes = client.getBean(QuotesClient.class);
            quotes.doubled(Flux.range(0, 10).map(i -> new Quote("R", i, 1))).take(4).blockLast(WAIT);
            assertThat(quotes.feed("R", 7).count().block(WAIT)).isEqualTo(7);
            await().atMost(WAIT).until(() -> records.recorded.size() == 2);
            assertThat(records.recorded).containsExactly(
                "doubled(Flux) " + XioCallOutcome.CANCELLED,
                "feed(String,int) sent 0 received 7 " + XioCallOutcome.SUCCESS);
        });
    }

    @Test
    void theServiceRecordsEachStreamsEndAsItWas()
    {
        final StreamRecords records = new StreamRecords();
        withClient(server -> server.withBean(XioInstrumentation.class, () -> records), UnaryOperator.identity(),
            (server, client) ->
            {
                final Quotes quotes = client.getBean(QuotesClient.class);
                assertThat(quotes.feed("R", 3).count().block(WAIT)).isEqualTo(3);
                await().atMost(WAIT).until(() -> records.recorded.size() == 1);
                quotes.endless("R").take(2).blockLast(WAIT);
                await().atMost(WAIT).until(() -> records.recorded.size() == 2);
                assertThatThrownBy(() -> quotes.failing("overdrawn", 1).blockLast(WAIT));
                await().atMost(WAIT).until(() -> records.recorded.size() == 3);
                assertThatThrownBy(() -> quotes.endlessWithDeadline("D").blockLast(WAIT));
                await().atMost(WAIT).until(() -> records.recorded.size() == 4);
                // Trailers the opener cannot take: the engine fails the stream, and it is no success.
                assertThatThrownBy(() -> quotes.hugeTrailers().blockLast(WAIT)).isInstanceOf(XioRemoteException.class);
                await().atMost(WAIT).until(() -> records.recorded.size() == 5);
                assertThat(records.recorded).containsExactly(
                    "feed(String,int) sent 3 received 0 " + XioCallOutcome.SUCCESS,
                    "endless(String) " + XioCallOutcome.CANCELLED,
                    "failing(String,int) sent 1 received 0 " + XioCallOutcome.SERVICE_ERROR,
                    "endlessWithDeadline(String) " + XioCallOutcome.TIMEOUT,
                    "hugeTrailers() sent 1 received 0 " + XioCallOutcome.ERROR);
            });
    }

    /** Records each call's method and outcome, with the messages of a stream. */
    private static final class StreamRecords implements XioInstrumentation
    {
        final List<String> recorded = new CopyOnWriteArrayList<>();

        @Override
        public CallRecorder recorder(final io.xio.spring.observation.XioCall call)
        {
            return new CallRecorder()
            {
                @Override
                public Object start(final io.xio.engine.Metadata metadata)
                {
                    return new StringBuilder(call.wireName());
                }

                @Override
                public void streamed(final Object started, final long sent, final long received)
                {
                    // Counts of streams cut short depend on how far they got: not recorded.
                    if (!call.wireName().startsWith("doubled") && !call.wireName().startsWith("endless"))
                    {
                        ((StringBuilder)started).append(" sent ").append(sent).append(" received ").append(received);
                    }
                }

                @Override
                public void stop(final Object started, final long startNanos, final XioCallOutcome outcome,
                    final Throwable failure)
                {
                    recorded.add(started + " " + outcome);
                }
            };
        }
    }
}
