package io.xio.engine.flow;

import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.TestEngines;
import io.xio.engine.XioTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import static io.xio.engine.TestEngines.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Flow view's behaviour on real engines, beyond what the Reactive Streams TCK checks: a cancel, a deadline, a
 * slow subscriber, both directions at once, and how each side's end reaches the other side's view.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlowStreamTest
{
    private FlowPeers peers;
    private ExecutorService executor;

    @BeforeEach
    void start()
    {
        peers = new FlowPeers();
        executor = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        peers.close();
    }

    @Test
    void cancellingTheSubscriptionCancelsTheStreamAtBothEndsAndBothUpstreams() throws Exception
    {
        final FlowStream opener = peers.open("accept", Outbound.empty(), CallOptions.DEFAULT);
        final FlowStream acceptor = peers.accepted();
        final Numbers endless = new Numbers(Long.MAX_VALUE);
        endless.subscribe(acceptor.subscriber());
        final Numbers openersUpstream = new Numbers(Long.MAX_VALUE);
        openersUpstream.subscribe(opener.subscriber());
        final Collector collector = new Collector(5);
        opener.publisher().subscribe(collector);
        await().atMost(Duration.ofSeconds(30)).until(() -> collector.numbers.size() == 5);

        collector.subscription.cancel();

        assertThat(failure(acceptor.outcome().toCompletableFuture())).isInstanceOf(RequestCancelledException.class);
        assertThat(endless.cancelled.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(openersUpstream.cancelled.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(opener.stream().isDone()).isTrue();
        assertThat(collector.numbers).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(collector.done).isNotDone(); // a cancelled subscriber hears nothing more
        assertThat(collector.beyondDemand).isFalse();
    }

    @Test
    void aCancelWhileMessagesAreStillHandedOutEarnsTheProducerNoMoreCredit() throws Exception
    {
        for (int round = 0; round < 10; round++)
        {
            final FlowStream opener = peers.open("accept", Outbound.empty(), CallOptions.DEFAULT);
            final FlowStream acceptor = peers.accepted();
            final Numbers endless = new Numbers(Long.MAX_VALUE);
            endless.subscribe(acceptor.subscriber());
            // One more asked for and then the cancel, from another thread, as a timer's subscriber does: the
            // delivery the request queued runs before the cancel and hands out the window that waits, to be closed.
            // That must not grant the producer another window before the cancel reaches it.
            final Collector collector = new Collector(1)
            {
                @Override
                void next(final long number)
                {
                    if (number == 1)
                    {
                        executor.execute(() ->
                        {
                            subscription.request(1);
                            subscription.cancel();
                        });
                    }
                }
            };
            await().atMost(Duration.ofSeconds(30)).until(() -> endless.emitted.get() >= FlowPeers.WINDOW);
            opener.publisher().subscribe(collector);

            assertThat(failure(acceptor.outcome().toCompletableFuture())).isInstanceOf(RequestCancelledException.class);
            assertThat(endless.cancelled.get(30, TimeUnit.SECONDS)).isTrue();
            assertThat(endless.emitted.get()).as("messages the producer made in round %d", round)
                .isLessThanOrEqualTo(FlowPeers.WINDOW + FlowStream.DEFAULT_MAX_REQUESTED);
        }
    }

    @Test
    void aDeadlineFailsTheSubscriberWithATimeoutAndCancelsTheUpstream() throws Exception
    {
        final FlowStream flow = peers.open("idle", Outbound.empty(),
            CallOptions.timeout(TestEngines.scaled(Duration.ofMillis(300))));
        final Numbers upstream = new Numbers(Long.MAX_VALUE);
        upstream.subscribe(flow.subscriber());
        final Collector collector = new Collector(1);
        flow.publisher().subscribe(collector);

        assertThat(failure(collector.done)).isInstanceOf(XioTimeoutException.class);
        assertThat(failure(flow.outcome().toCompletableFuture())).isInstanceOf(XioTimeoutException.class);
        assertThat(upstream.cancelled.get(30, TimeUnit.SECONDS)).isTrue();
        // The idle acceptor took nothing: the subscriber sent no more than the window, and held no more than it asked.
        assertThat(upstream.emitted.get()).isLessThanOrEqualTo(FlowPeers.WINDOW + FlowStream.DEFAULT_MAX_REQUESTED);
    }

    @Test
    void aSlowSubscriberRequestingOneAtATimeGetsEveryMessageInOrder() throws Exception
    {
        final int count = 2_000;
        final FlowStream opener = peers.open("accept", Outbound.empty(), CallOptions.DEFAULT);
        final FlowStream acceptor = peers.accepted();
        final Numbers numbers = new Numbers(count);
        numbers.subscribe(acceptor.subscriber());
        final Collector collector = new Collector(1)
        {
            @Override
            void next(final long number)
            {
                executor.execute(() ->
                {
                    if (number % 100 == 0)
                    {
                        pause(5); // now and then a slower one: the acceptor's window fills meanwhile
                    }
                    subscription.request(1);
                });
            }
        };
        opener.publisher().subscribe(collector);

        collector.done.get(30, TimeUnit.SECONDS);
        assertThat(collector.numbers).containsExactlyElementsOf(LongStream.rangeClosed(1, count).boxed().toList());
        assertThat(collector.beyondDemand).isFalse();
        assertThat(opener.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(Metadata.EMPTY);
        // The acceptor's subscriber never had more asked of its upstream than it may hold.
        assertThat(numbers.mostOutstanding.get()).isPositive().isLessThanOrEqualTo(FlowStream.DEFAULT_MAX_REQUESTED);
    }

    @Test
    void bothDirectionsAtOnceEchoEveryMessageInOrderAndEndAtTheHalfClose() throws Exception
    {
        final int count = 5_000;
        final FlowStream opener = peers.open("accept", Outbound.empty(), CallOptions.DEFAULT);
        final FlowStream acceptor = peers.accepted();
        acceptor.publisher().subscribe(new Echo(acceptor.subscriber()));
        final Collector collector = new Collector(Long.MAX_VALUE);
        opener.publisher().subscribe(collector);
        final Numbers numbers = new Numbers(count);
        numbers.subscribe(opener.subscriber());

        collector.done.get(30, TimeUnit.SECONDS);
        assertThat(collector.numbers).containsExactlyElementsOf(LongStream.rangeClosed(1, count).boxed().toList());
        assertThat(acceptor.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(Metadata.EMPTY);
        assertThat(numbers.cancelled).isNotDone(); // it completed; nothing cancelled it
    }

    @Test
    void aCancelReachesAnAcceptorThatEchoesAsACancelNotAsAFailure() throws Exception
    {
        final FlowStream opener = peers.open("accept", Outbound.empty(), CallOptions.DEFAULT);
        final FlowStream acceptor = peers.accepted();
        final Echo echo = new Echo(acceptor.subscriber());
        acceptor.publisher().subscribe(echo);
        final Collector collector = new Collector(5);
        opener.publisher().subscribe(collector);
        new Numbers(Long.MAX_VALUE).subscribe(opener.subscriber());
        await().atMost(Duration.ofSeconds(30)).until(() -> collector.numbers.size() == 5);

        collector.subscription.cancel();

        assertThat(failure(acceptor.outcome().toCompletableFuture())).isInstanceOf(RequestCancelledException.class);
        // The echo's subscriber lets it go before the publisher hears the cancel: the echo is cancelled, as a map
        // operator's upstream and downstream would be, and never passes the stream's failure on to a stream that is
        // over.
        assertThat(echo.cancelled.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(echo.failed).isNotDone();
    }

    @Test
    void anAcceptorThatCompletesBeforeTheHalfCloseCutsItsPublisherOff() throws Exception
    {
        final FlowStream opener = peers.open("accept", Outbound.empty(), CallOptions.DEFAULT);
        final FlowStream acceptor = peers.accepted();
        final Collector atAcceptor = new Collector(Long.MAX_VALUE);
        acceptor.publisher().subscribe(atAcceptor);
        final Collector atOpener = new Collector(Long.MAX_VALUE);
        opener.publisher().subscribe(atOpener);

        new Numbers(3).subscribe(acceptor.subscriber());

        atOpener.done.get(30, TimeUnit.SECONDS);
        assertThat(atOpener.numbers).containsExactly(1L, 2L, 3L);
        assertThat(failure(atAcceptor.done)).isInstanceOf(RequestCancelledException.class)
            .hasMessageContaining("before the opener half-closed");
        final Numbers late = new Numbers(Long.MAX_VALUE);
        late.subscribe(opener.subscriber());
        assertThat(late.cancelled.get(30, TimeUnit.SECONDS)).isTrue(); // a subscriber of an ended stream lets go
    }

    @Test
    void anUpstreamErrorFailsTheAcceptorsStreamAndTheOpenerHearsIt() throws Exception
    {
        final FlowStream opener = peers.open("accept", Outbound.empty(), CallOptions.DEFAULT);
        final FlowStream acceptor = peers.accepted();
        final Collector atOpener = new Collector(Long.MAX_VALUE);
        opener.publisher().subscribe(atOpener);

        acceptor.subscriber().onSubscribe(new Flow.Subscription()
        {
            @Override
            public void request(final long count)
            {
            }

            @Override
            public void cancel()
            {
            }
        });
        acceptor.subscriber().onError(new IllegalStateException("the ledger is closed"));

        assertThat(failure(atOpener.done)).isInstanceOf(RemoteException.class).hasMessageContaining("ledger is closed");
        assertThat(failure(acceptor.outcome().toCompletableFuture())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aStreamThePeerRefusesFailsThePublishersSubscriberAndASecondSubscriberIsRefused() throws Exception
    {
        final FlowStream flow = peers.open("plain", Outbound.empty(), CallOptions.DEFAULT);
        final Collector first = new Collector(1);
        flow.publisher().subscribe(first);
        assertThat(failure(first.done)).isInstanceOf(RemoteException.class).hasMessageContaining("takes no streams");

        final Collector second = new Collector(1);
        flow.publisher().subscribe(second);
        assertThat(second.subscription).isNotNull();
        assertThat(failure(second.done)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("one subscriber");
    }

    private static void pause(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Takes numbered messages (closing them), asking for {@code initial} at first and then as {@link #next} says. */
    private static class Collector implements Flow.Subscriber<Message>
    {
        final List<Long> numbers = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final AtomicLong demand = new AtomicLong();
        volatile Flow.Subscription subscription;
        volatile boolean beyondDemand;
        private final long initial;

        Collector(final long initial)
        {
            this.initial = initial;
        }

        @Override
        public void onSubscribe(final Flow.Subscription value)
        {
            subscription = new Flow.Subscription()
            {
                @Override
                public void request(final long count)
                {
                    demand.addAndGet(count);
                    value.request(count);
                }

                @Override
                public void cancel()
                {
                    value.cancel();
                }
            };
            subscription.request(initial);
        }

        @Override
        public void onNext(final Message message)
        {
            if (demand.decrementAndGet() < 0 && initial != Long.MAX_VALUE)
            {
                beyondDemand = true;
            }
            final long number;
            try (message)
            {
                number = FlowPeers.number(message);
            }
            numbers.add(number);
            next(number);
        }

        /** After each message: nothing more by default. */
        void next(final long number)
        {
        }

        @Override
        public void onError(final Throwable error)
        {
            done.completeExceptionally(error);
        }

        @Override
        public void onComplete()
        {
            done.complete(null);
        }
    }

    /** Publishes the numbers 1..count ({@link Long#MAX_VALUE}: for ever) as asked, on the asking thread. */
    private static final class Numbers implements Flow.Publisher<Outbound>
    {
        final CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
        final AtomicLong emitted = new AtomicLong();
        final AtomicLong mostOutstanding = new AtomicLong();
        private final long count;
        private final AtomicLong requested = new AtomicLong();
        private final AtomicInteger wip = new AtomicInteger();
        private final AtomicBoolean subscribed = new AtomicBoolean();
        private Flow.Subscriber<? super Outbound> subscriber;
        private long next = 1;
        private boolean completed;

        Numbers(final long count)
        {
            this.count = count;
        }

        @Override
        public void subscribe(final Flow.Subscriber<? super Outbound> target)
        {
            assertThat(subscribed.compareAndSet(false, true)).isTrue();
            subscriber = target;
            target.onSubscribe(new Flow.Subscription()
            {
                @Override
                public void request(final long more)
                {
                    assertThat(more).isPositive();
                    final long total = requested.accumulateAndGet(more, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
                    mostOutstanding.accumulateAndGet(total - emitted.get(), Math::max);
                    drain();
                }

                @Override
                public void cancel()
                {
                    cancelled.complete(true);
                }
            });
            drain();
        }

        private void drain()
        {
            if (wip.getAndIncrement() != 0)
            {
                return;
            }
            int missed = 1;
            do
            {
                while (!cancelled.isDone() && emitted.get() < requested.get() && next <= count)
                {
                    emitted.incrementAndGet();
                    subscriber.onNext(FlowPeers.number(next++));
                }
                if (next > count && !completed && !cancelled.isDone())
                {
                    completed = true;
                    subscriber.onComplete();
                }
                missed = wip.addAndGet(-missed);
            }
            while (missed != 0);
        }
    }

    /** Sends every number it is given back, as a map operator would: demand and cancel pass straight up, recorded. */
    private static final class Echo implements Flow.Subscriber<Message>
    {
        private final Flow.Subscriber<Outbound> downstream;
        final CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
        final CompletableFuture<Throwable> failed = new CompletableFuture<>();

        Echo(final Flow.Subscriber<Outbound> downstream)
        {
            this.downstream = downstream;
        }

        @Override
        public void onSubscribe(final Flow.Subscription subscription)
        {
            downstream.onSubscribe(new Flow.Subscription()
            {
                @Override
                public void request(final long count)
                {
                    subscription.request(count);
                }

                @Override
                public void cancel()
                {
                    cancelled.complete(true);
                    subscription.cancel();
                }
            });
        }

        @Override
        public void onNext(final Message message)
        {
            try (message)
            {
                downstream.onNext(FlowPeers.number(FlowPeers.number(message)));
            }
        }

        @Override
        public void onError(final Throwable error)
        {
            failed.complete(error);
            downstream.onError(error);
        }

        @Override
        public void onComplete()
        {
            downstream.onComplete();
        }
    }
}
