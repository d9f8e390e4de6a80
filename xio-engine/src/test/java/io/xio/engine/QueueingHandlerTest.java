package io.xio.engine;

import io.xio.engine.support.QueueingHandler;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A slow service behind {@link QueueingHandler}, seen from a client through the public API: what does not fit
 * the workers and the queue is refused with back-pressure at once, what fits completes, and a request cancelled
 * while it waited never runs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueingHandlerTest
{
    private final TestEngines engines = new TestEngines();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostRunning = new AtomicInteger();
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws InterruptedException
    {
        release.countDown();
        engines.close();
        executor.shutdownNow();
        assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }

    /** Holds every request until {@link #release}, then echoes it; counts how many ran at once. */
    private boolean heldEcho(final InboundRequest request, final long arrivedNanos) throws Exception
    {
        mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        try
        {
            ran.add(text(request.message().header()));
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
            ECHO.onRequest(request);
            return true;
        }
        finally
        {
            running.decrementAndGet();
        }
    }

    @Test
    void aFloodBeyondWorkersAndQueueIsRefusedAtOnceWhileAcceptedRequestsComplete() throws Exception
    {
        final int workers = 2;
        final int maxQueued = QueueingHandler.defaultMaxQueued(workers);
        final QueueingHandler handler = new QueueingHandler(executor, workers, maxQueued, this::heldEcho);
        final XioEngine server = engines.start("server");
        server.register("slow", handler);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("slow").toString()))
        {
            final AtomicBoolean flooding = new AtomicBoolean(true);
            final AtomicInteger mostHeld = new AtomicInteger();
            final java.util.concurrent.Future<?> watcher = executor.submit(() ->
            {
                // From outside: the server's engine counts as executing the requests running and queued, and for a
                // moment each one a context thread is handing to the handler (so up to one more per server context).
                while (flooding.get())
                {
                    for (final Session accepted : server.sessions())
                    {
                        mostHeld.accumulateAndGet(accepted.statistics().executing(), Math::max);
                    }
                    Thread.onSpinWait();
                }
            });
            final List<XioFuture<Message>> calls = new ArrayList<>();
            for (int i = 0; i < 20; i++)
            {
                calls.add(session.request(Outbound.of(utf8("call " + i)), CallOptions.timeout(Duration.ofSeconds(30))));
            }
            final List<XioFuture<Message>> refused = new ArrayList<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> calls.stream().filter(XioFuture::isDone).count() ==
                calls.size() - workers - maxQueued);
            for (final XioFuture<Message> call : calls)
            {
                if (call.isDone())
                {
                    refused.add(call);
                }
            }
            // Refused while every accepted request is still held: none of them waited for work to finish.
            assertThat(release.getCount()).isOne();
            assertThat(refused).hasSize(20 - workers - maxQueued).allSatisfy(call ->
                assertThatThrownBy(call::get).isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOf(BackPressureException.class).cause()
                    .isInstanceOfSatisfying(RemoteException.class, remote ->
                        assertThat(remote.isBackPressure()).isTrue()));
            assertThat(handler.refusedFull()).isEqualTo(20 - workers - maxQueued);
            assertThat(handler.queued()).isEqualTo(maxQueued);
            assertThat(handler.inProgress()).isEqualTo(workers);
            assertThat(server.statistics().backPressureRejections()).isEqualTo(20 - workers - maxQueued);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.sessions().stream()
                .mapToInt(s -> s.statistics().executing()).sum() == workers + maxQueued);

            release.countDown();
            for (final XioFuture<Message> call : calls)
            {
                if (!refused.contains(call))
                {
                    try (Message reply = call.get(10, TimeUnit.SECONDS))
                    {
                        assertThat(text(reply.header())).startsWith("call ");
                    }
                }
            }
            flooding.set(false);
            watcher.get(5, TimeUnit.SECONDS);
            assertThat(ran).hasSize(workers + maxQueued);
            assertThat(mostRunning.get()).isEqualTo(workers);
            assertThat(mostHeld.get()).isBetween(workers + maxQueued, workers + maxQueued + server.contexts().size());
            await().atMost(Duration.ofSeconds(5)).until(() -> handler.inProgress() == 0 && handler.queued() == 0);
        }
    }

    @Test
    void aRequestCancelledWhileItWaitedIsTurnedAwayUnrun() throws Exception
    {
        final List<QueueingHandler.Refusal> refusals = new CopyOnWriteArrayList<>();
        final QueueingHandler handler = new QueueingHandler(executor, 1, 2, new QueueingHandler.Work()
        {
            @Override
            public boolean run(final InboundRequest request, final long arrivedNanos) throws Exception
            {
                return heldEcho(request, arrivedNanos);
            }

            @Override
            public void refused(final InboundRequest request, final QueueingHandler.Refusal why,
                final long arrivedNanos)
            {
                refusals.add(why);
                QueueingHandler.Work.super.refused(request, why, arrivedNanos);
            }
        });
        final XioEngine server = engines.start("server");
        server.register("slow", handler);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start(engines.builder("client").contexts(1));
        try (Session session = client.connect(portal.uri().withResource("slow").toString()))
        {
            final XioFuture<Message> held = session.request(Outbound.of(utf8("held")),
                CallOptions.timeout(Duration.ofSeconds(30)));
            await().atMost(Duration.ofSeconds(5)).until(() -> handler.inProgress() == 1);
            final XioFuture<Message> impatient = session.request(Outbound.of(utf8("impatient")),
                CallOptions.timeout(Duration.ofMillis(200)));
            assertThatThrownBy(() -> impatient.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(XioTimeoutException.class);
            // The deadline's cancel reached the server, which no longer counts the queued request as executing.
            await().atMost(Duration.ofSeconds(5)).until(() -> server.sessions().stream()
                .mapToInt(s -> s.statistics().executing()).sum() == 1);
            assertThat(handler.queued()).isOne();

            release.countDown();
            held.get(10, TimeUnit.SECONDS).close();
            try (Message after = session.request(Outbound.of(utf8("after"))).get(10, TimeUnit.SECONDS))
            {
                assertThat(text(after.header())).isEqualTo("after");
            }
            assertThat(ran).containsExactly("held", "after");
            assertThat(refusals).containsExactly(QueueingHandler.Refusal.CANCELLED);
            assertThat(handler.refusedCancelled()).isOne();
            assertThat(handler.refusedFull()).isZero();
        }
    }

    @Test
    void workThatThrowsFailsItsRequestAndItsWorkerCarriesOn() throws Exception
    {
        final QueueingHandler handler = new QueueingHandler(executor, 1, 0, (request, arrived) ->
        {
            if (text(request.message().header()).equals("boom"))
            {
                throw new IllegalArgumentException("no boom here");
            }
            ECHO.onRequest(request);
            return true;
        });
        final XioEngine server = engines.start("server");
        server.register("slow", handler);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("slow").toString()))
        {
            assertThatThrownBy(() -> session.request(Outbound.of(utf8("boom"))).get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOfSatisfying(RemoteException.class, remote ->
                {
                    assertThat(remote.remoteType()).isEqualTo(IllegalArgumentException.class.getName());
                    assertThat(remote.isBackPressure()).isFalse();
                });
            try (Message reply = session.request(Outbound.of(utf8("fine"))).get(10, TimeUnit.SECONDS))
            {
                assertThat(text(reply.header())).isEqualTo("fine");
            }
        }
    }

    @Test
    void workThatAnswersLaterKeepsItsPlaceUntilItSaysItFinished() throws Exception
    {
        final java.util.concurrent.LinkedBlockingQueue<InboundRequest> later =
            new java.util.concurrent.LinkedBlockingQueue<>();
        final QueueingHandler[] handler = new QueueingHandler[1];
        handler[0] = new QueueingHandler(executor, 1, 0, (request, arrived) ->
        {
            ran.add(text(request.message().header()));
            later.add(request); // answered from the test thread: the worker returns at once
            return false;
        });
        final XioEngine server = engines.start("server");
        server.register("async", handler[0]);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("async").toString()))
        {
            final XioFuture<Message> first = session.request(Outbound.of(utf8("first")));
            final InboundRequest pending = later.poll(10, TimeUnit.SECONDS);
            assertThat(handler[0].inProgress()).isOne();
            // No worker thread runs it, but it still holds the only place.
            assertThatThrownBy(() -> session.request(Outbound.of(utf8("second"))).get(10, TimeUnit.SECONDS))
                .cause().isInstanceOf(BackPressureException.class).cause()
                .isInstanceOfSatisfying(RemoteException.class, remote -> assertThat(remote.isBackPressure()).isTrue());
            ECHO.onRequest(pending);
            handler[0].finished();
            first.get(10, TimeUnit.SECONDS).close();
            final XioFuture<Message> third = session.request(Outbound.of(utf8("third")));
            ECHO.onRequest(later.poll(10, TimeUnit.SECONDS));
            handler[0].finished();
            third.get(10, TimeUnit.SECONDS).close();
            assertThat(ran).containsExactly("first", "third");
            assertThat(handler[0].inProgress()).isZero();
        }
    }

    @Test
    void boundsAreChecked()
    {
        assertThatThrownBy(() -> new QueueingHandler(executor, 0, 2, (r, t) -> true))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("workers");
        assertThatThrownBy(() -> new QueueingHandler(executor, 1, -1, (r, t) -> true))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxQueued");
        assertThat(QueueingHandler.defaultMaxQueued(8)).isEqualTo(16);
    }
}
