package io.xio.engine;

import io.xio.engine.context.EventLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ContextTest
{
    private static Set<String> xioThreads(final String prefix)
    {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
            .filter(name -> name.startsWith(prefix)).collect(Collectors.toSet());
    }

    @Test
    void eachContextIsOneThreadAndCloseStopsThemAll() throws Exception
    {
        try (TestEngines engines = new TestEngines())
        {
            final XioEngine engine = engines.start(engines.builder("threads").contexts(3));
            assertThat(xioThreads("threads-ctx-")).containsExactlyInAnyOrder(
                "threads-ctx-0", "threads-ctx-1", "threads-ctx-2");
            final CompletableFuture<String> ranOn = new CompletableFuture<>();
            final Context context = engine.contexts().get(1);
            context.execute(() -> ranOn.complete(Thread.currentThread().getName() + ":" + context.inContextThread()));
            assertThat(ranOn.get(5, TimeUnit.SECONDS)).isEqualTo("threads-ctx-1:true");
            assertThat(context.inContextThread()).isFalse();
            assertThatThrownBy(() -> context.runOnce(Duration.ZERO)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("manual");
        }
        assertThat(xioThreads("threads-ctx-")).isEmpty();
    }

    /** Over shm the request is read, answered and flushed in the doorbell's handler, within the parked loop's wait. */
    @ParameterizedTest
    @ValueSource(strings = {"tcp://127.0.0.1:0", "shm://paced-"})
    void aPacedLoadIsLearnedTheIdleContextDozingUntilTheNextCallIsDue(final String address) throws Exception
    {
        try (TestEngines engines = new TestEngines())
        {
            // the default idle wait, not the tests' park-at-once
            final XioEngine server = engines.start(engines.builder("paced-server").contexts(1)
                .busyPoll(XioEngine.DEFAULT_BUSY_POLL));
            assertThat(server.adaptivePolling()).isTrue();
            server.register("echo", ECHO);
            final Portal portal = server.bind(address.startsWith("shm") ? address + UUID.randomUUID() : address);
            final XioEngine client = engines.start(engines.builder("paced-client").contexts(1));
            final EventLoop loop = (EventLoop)server.contexts().get(0);
            try (Session session = client.connect(portal.uri().withResource("echo").toString()))
            {
                final long interval = TimeUnit.MILLISECONDS.toNanos(2);
                long due = System.nanoTime();
                for (int i = 0; i < 300; i++)
                {
                    due += interval;
                    long now;
                    while ((now = System.nanoTime()) < due)
                    {
                        LockSupport.parkNanos(due - now); // pacing the calls, not waiting for a condition
                    }
                    try (Message reply = session.request(Outbound.of(utf8("paced " + i))).get(5, TimeUnit.SECONDS))
                    {
                        assertThat(text(reply.header())).isEqualTo("paced " + i);
                    }
                }
                final CompletableFuture<Long> dozes = new CompletableFuture<>();
                loop.execute(() -> dozes.complete(loop.dozes()));
                // learned after a few calls, then a doze before most (150-220 here); a fifth allows a noisy host
                assertThat(dozes.get(5, TimeUnit.SECONDS)).as("dozes of the server's context, of 300 calls")
                    .isGreaterThan(60);
            }
        }
    }

    @Test
    void manualContextsRunOnTheApplicationsThreads() throws Exception
    {
        try (TestEngines engines = new TestEngines())
        {
            final XioEngine server = engines.start("server");
            server.register("echo", ECHO);
            final Portal portal = server.bind("tcp://127.0.0.1:0");
            final XioEngine client = engines.start(engines.builder("manual").contexts(1).manualContexts(true));
            assertThat(xioThreads("manual-ctx-")).isEmpty();
            final Context context = client.contexts().get(0);
            final CompletableFuture<Session> opening = client.openSession(
                portal.uri().withResource("echo").toString(), SessionOptions.DEFAULT);
            while (!opening.isDone())
            {
                context.runOnce(Duration.ofMillis(10));
            }
            final Session session = opening.get();
            final XioFuture<Message> reply = session.request(Outbound.of(utf8("by hand")));
            while (!reply.isDone())
            {
                context.runOnce(Duration.ofMillis(10));
            }
            try (Message message = reply.get())
            {
                assertThat(text(message.header())).isEqualTo("by hand");
            }
            // another thread wakes a context parked in runOnce
            final CountDownLatch ran = new CountDownLatch(1);
            final Thread waker = new Thread(() -> context.execute(ran::countDown));
            final long start = System.nanoTime();
            waker.start();
            context.runOnce(Duration.ofSeconds(10));
            waker.join();
            assertThat(ran.await(0, TimeUnit.SECONDS)).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            session.close();
            context.doWork();
        }
    }
}
