package io.xio.engine.transport.tcp;

import io.xio.engine.CallOptions;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bounded soak of exactly-once delivery through a relay that resets connections every 100 ms: 300,000
 * requests with 128 in flight, answered later from other threads. With one connection per session every
 * connection is reset; with two, one of them at a time, so calls fail over to the other. Every request must run
 * once, and every caller get its own answer: none lost, duplicated, mixed up or failed.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ExactlyOnceSoakTest
{
    private static final int REQUESTS = 300_000;
    private static final int IN_FLIGHT = 128;

    private final TestEngines engines = new TestEngines();
    private final ScheduledExecutorService workers = Executors.newScheduledThreadPool(4);

    @AfterEach
    void close() throws InterruptedException
    {
        workers.shutdownNow();
        assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        engines.close();
    }

    @ParameterizedTest(name = "{0} connection(s)")
    @ValueSource(ints = {1, 2})
    void everyRequestRunsOnceAndEveryCallerGetsItsOwnAnswer(final int connections) throws Exception
    {
        final XioEngine server = engines.start("server");
        final AtomicIntegerArray executions = new AtomicIntegerArray(REQUESTS);
        server.register("count", request ->
        {
            final int index = request.message().header().getInt(0);
            executions.incrementAndGet(index);
            // The answer borrows the request's header: the request is released once the answer is written.
            final Runnable answer = () -> request.respond(Outbound.of(request.message().header())
                .releaseAfterSend(request.message()));
            if ((index & 3) == 0)
            {
                answer.run(); // a quarter inline, the rest later from another thread
            }
            else
            {
                workers.schedule(answer, ThreadLocalRandom.current().nextInt(200), TimeUnit.MICROSECONDS);
            }
        });
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start("client");
        final Random random = new Random(42);
        try (TcpProxy proxy = new TcpProxy(portal.uri().port());
             Session session = client.connect("tcp://127.0.0.1:" + proxy.port() + "/count",
                 SessionOptions.DEFAULT.withConnections(connections).withTimeout(Duration.ofSeconds(60))))
        {
            final AtomicInteger resets = new AtomicInteger();
            workers.scheduleAtFixedRate(() ->
            {
                if (connections == 1 ? proxy.dropAll() > 0 : proxy.dropOne(random))
                {
                    resets.incrementAndGet();
                }
            }, 100, 100, TimeUnit.MILLISECONDS);
            final Semaphore window = new Semaphore(IN_FLIGHT);
            final CountDownLatch done = new CountDownLatch(REQUESTS);
            final AtomicInteger mixed = new AtomicInteger();
            final AtomicInteger failed = new AtomicInteger();
            final long start = System.nanoTime();
            for (int i = 0; i < REQUESTS; i++)
            {
                window.acquire();
                final int index = i;
                session.request(Outbound.of(ByteBuffer.allocate(4).putInt(0, i)),
                    CallOptions.DEFAULT.withWaitWhenFull(true)).whenComplete((reply, error) ->
                    {
                        if (error != null)
                        {
                            failed.incrementAndGet();
                        }
                        else
                        {
                            try (reply)
                            {
                                if (reply.header().getInt(0) != index)
                                {
                                    mixed.incrementAndGet();
                                }
                            }
                        }
                        window.release();
                        done.countDown();
                    });
            }
            assertThat(done.await(180, TimeUnit.SECONDS)).as("every call answered").isTrue();
            final double seconds = (System.nanoTime() - start) / 1e9;
            int lost = 0;
            int twice = 0;
            for (int i = 0; i < REQUESTS; i++)
            {
                lost += executions.get(i) == 0 ? 1 : 0;
                twice += executions.get(i) > 1 ? 1 : 0;
            }
            System.out.printf("soak, %d connection(s): %d requests in %.1f s, %d resets, %d retransmits; " +
                "%d lost, %d run twice, %d mixed, %d failed%n", connections, REQUESTS, seconds, resets.get(),
                session.statistics().retransmits(), lost, twice, mixed.get(), failed.get());
            assertThat(resets.get()).isGreaterThan(3);
            assertThat(failed.get()).as("failed").isZero();
            assertThat(mixed.get()).as("mixed up").isZero();
            assertThat(lost).as("never ran").isZero();
            assertThat(twice).as("ran twice").isZero();
            assertThat(session.statistics().retransmits()).isPositive();
        }
    }
}
