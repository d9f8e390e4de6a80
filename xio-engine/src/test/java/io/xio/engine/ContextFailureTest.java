package io.xio.engine;

import io.xio.engine.context.EventLoop;
import io.xio.engine.transport.Poller;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An Error on a context's thread (or anything escaping its loop) fails the context, tells the listener, fails the
 * context's sessions and then closes the engine or restarts the context; a RuntimeException fails only its task.
 * Manual contexts where the loop alone is under test, the local transport (no sockets) where sessions are.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ContextFailureTest
{
    private final TestEngines engines = new TestEngines();
    private final List<SessionEvent> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void close()
    {
        engines.close();
    }

    /** Where on the context's thread the Error is thrown. */
    enum Site
    {
        TASK, TIMER, POLLER
    }

    private static void throwOn(final Context context, final Site site, final Throwable error)
    {
        final EventLoop loop = (EventLoop)context;
        switch (site)
        {
            case TASK -> context.execute(() -> sneakyThrow(error));
            case TIMER -> loop.schedule(loop.nanoTime(), () -> sneakyThrow(error));
            case POLLER -> loop.addPoller(new Poller()
            {
                @Override
                public int poll()
                {
                    return sneakyThrow(error);
                }

                @Override
                public boolean hasWork()
                {
                    return true;
                }
            });
            default -> throw new IllegalArgumentException(site.name());
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> int sneakyThrow(final Throwable error) throws T
    {
        throw (T)error;
    }

    /** Runs a manual context until it throws (a timer may take a tick of the wheel to come due). */
    private static void runUntilItThrows(final Context context)
    {
        for (int i = 0; i < 1_000; i++)
        {
            context.runOnce(Duration.ofMillis(5));
        }
        throw new AssertionError("context " + context.name() + " never failed");
    }

    private XioEngine.Builder manual(final String name)
    {
        return engines.builder(name).manualContexts(true).sessionListener(events::add);
    }

    @ParameterizedTest
    @EnumSource(Site.class)
    void anErrorFailsTheContextTellsTheListenerAndClosesTheEngineByDefault(final Site site)
    {
        final XioEngine engine = engines.start(manual("fails-" + site));
        final Context failing = engine.contexts().get(0);
        final Context other = engine.contexts().get(1);
        final OutOfMemoryError error = new OutOfMemoryError("injected on " + site);
        throwOn(failing, site, error);

        assertThatThrownBy(() -> runUntilItThrows(failing)).isInstanceOf(ContextFailedException.class)
            .hasMessageContaining("context fails-" + site + "-ctx-0 failed").hasCause(error);
        assertThat(failing.state()).isEqualTo(ContextState.FAILED);
        assertThat(failing.failure()).isSameAs(error);
        assertThat(failing.isRunning()).isFalse();
        assertThat(engine.isOpen()).as("closed itself").isFalse();
        assertThat(other.state()).isEqualTo(ContextState.CLOSED);
        assertThat(engine.failedContexts()).containsExactly(failing);
        assertThat(events).filteredOn(event -> event.type() == SessionEvent.Type.CONTEXT_FAILED).singleElement()
            .satisfies(event ->
            {
                assertThat(event.session()).isNull();
                assertThat(event.cause()).isSameAs(error);
                assertThat(event.detail()).contains("fails-" + site + "-ctx-0", "injected on " + site,
                    "closing the engine");
            });
        // Whoever comes later is told why, at once.
        assertThatThrownBy(failing::doWork).isInstanceOf(ContextFailedException.class).hasCause(error);
        assertThatThrownBy(() -> failing.execute(() -> { })).isInstanceOf(ContextFailedException.class);
        assertThatThrownBy(() -> engine.openSession("local://x/kv", SessionOptions.DEFAULT))
            .isInstanceOf(XioException.class).hasMessageContaining("closed");
    }

    @Test
    void aRuntimeExceptionFailsOnlyItsTaskAndTheLoopGoesOn()
    {
        final XioEngine engine = engines.start(manual("survives"));
        final Context context = engine.contexts().get(0);
        final AtomicInteger ran = new AtomicInteger();
        context.execute(() ->
        {
            throw new IllegalStateException("a task's own bug");
        });
        context.execute(ran::incrementAndGet);
        context.doWork();
        final EventLoop loop = (EventLoop)context;
        loop.schedule(loop.nanoTime(), () ->
        {
            throw new IllegalArgumentException("a timer's own bug");
        });
        loop.schedule(loop.nanoTime(), ran::incrementAndGet);
        for (int i = 0; i < 5 && ran.get() < 2; i++)
        {
            context.runOnce(Duration.ofMillis(10));
        }
        assertThat(ran).hasValue(2);
        assertThat(context.state()).isEqualTo(ContextState.RUNNING);
        assertThat(engine.isOpen()).isTrue();
        assertThat(engine.failedContexts()).isEmpty();
        assertThat(events).noneMatch(event -> event.type() == SessionEvent.Type.CONTEXT_FAILED);
    }

    @Test
    void aManualContextIsRestartedInPlaceAndTheApplicationDrivesTheFreshOne()
    {
        final XioEngine engine = engines.start(manual("manual-restart")
            .onContextFailure(ContextFailurePolicy.RESTART_CONTEXT));
        final Context failed = engine.contexts().get(0);
        failed.execute(() ->
        {
            throw new OutOfMemoryError("injected");
        });
        assertThatThrownBy(failed::doWork).isInstanceOf(ContextFailedException.class);
        assertThat(engine.isOpen()).isTrue();
        final Context fresh = engine.contexts().get(0);
        assertThat(fresh).isNotSameAs(failed);
        assertThat(fresh.state()).isEqualTo(ContextState.RUNNING);
        final AtomicInteger ran = new AtomicInteger();
        fresh.execute(ran::incrementAndGet);
        fresh.doWork();
        assertThat(ran).hasValue(1);
        assertThat(engine.contexts().get(1).state()).as("the other context").isEqualTo(ContextState.RUNNING);
    }

    @Test
    void aStackOverflowOnAContextThreadEndsItsThreadAndClosesTheEngine()
    {
        final XioEngine engine = engines.start(engines.builder("overflow").sessionListener(events::add));
        final Context context = engine.contexts().get(1);
        context.execute(ContextFailureTest::recurse);
        await().atMost(Duration.ofSeconds(10)).until(() -> !engine.isOpen());
        assertThat(context.state()).isEqualTo(ContextState.FAILED);
        assertThat(context.failure()).isInstanceOf(StackOverflowError.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.contexts().get(0).state() == ContextState.CLOSED);
        await().atMost(Duration.ofSeconds(10)).until(() -> xioThreads("overflow-ctx-") == 0);
        assertThat(events).anyMatch(event -> event.type() == SessionEvent.Type.CONTEXT_FAILED &&
            event.cause() instanceof StackOverflowError);
    }

    private static int recurse()
    {
        return recurse() + 1;
    }

    private static long xioThreads(final String prefix)
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @Test
    void anErrorInARequestHandlerFailsTheServerAndItsCallersHearItInsteadOfWaiting() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("server").sessionListener(events::add));
        server.register("boom", request ->
        {
            request.message().close();
            throw new OutOfMemoryError("handler ran out");
        });
        final Portal portal = server.bind("local://boom-" + UUID.randomUUID(), PortalOptions.DEFAULT.withContext(0));
        // The server's end is a lost connection to its clients, as when its process dies: they try to reconnect
        // for the reconnect timeout, then fail their calls. Short here, so that the test does not wait for it.
        final XioEngine client = engines.start(engines.builder("client").contexts(1)
            .reconnectTimeout(Duration.ofSeconds(2)));
        final Session session = client.connect(portal.uri().withResource("boom").toString());
        final XioFuture<Message> reply = session.request(Outbound.of(utf8("go")),
            CallOptions.timeout(Duration.ofSeconds(30)));
        final long start = System.nanoTime();
        assertThatThrownBy(() -> reply.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(ConnectionException.class).isNotInstanceOf(XioTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> !server.isOpen());
        assertThat(server.contexts().get(0).failure()).isInstanceOf(OutOfMemoryError.class)
            .hasMessage("handler ran out");
        assertThat(events).anyMatch(event -> event.type() == SessionEvent.Type.CONTEXT_FAILED);
        assertThatThrownBy(() -> client.connect(portal.uri().withResource("boom").toString()))
            .isInstanceOf(ConnectionException.class);
    }

    @Test
    void theFailedContextsCallersGetAContextFailedExceptionAndOtherSessionsAreClosedToo() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("hold", request -> request.message().close());
        final Portal portal = server.bind("local://hold-" + UUID.randomUUID());
        final XioEngine client = engines.start(engines.builder("client").contexts(1).sessionListener(events::add));
        final Session session = client.connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> pending = session.request(Outbound.of(utf8("never answered")),
            CallOptions.timeout(Duration.ofSeconds(30)));
        final Error error = new AssertionError("any Error at all");
        client.contexts().get(0).execute(() ->
        {
            throw error;
        });
        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(ContextFailedException.class).hasMessageContaining("client-ctx-0 failed")
            .hasCause(error);
        await().atMost(Duration.ofSeconds(10)).until(() -> !client.isOpen());
        assertThat(session.isOpen()).isFalse();
        assertThat(events).anyMatch(event -> event.type() == SessionEvent.Type.CLOSED &&
            event.session() == session && event.cause() instanceof ContextFailedException);
    }

    @Test
    void restartPutsAFreshContextInTheFailedOnesPlaceAndBindsItsPortalsAgain() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("phoenix").sessionListener(events::add)
            .onContextFailure(ContextFailurePolicy.RESTART_CONTEXT));
        server.register("echo", ECHO);
        final Portal failing = server.bind("tcp://127.0.0.1:0", PortalOptions.DEFAULT.withContext(0));
        final Portal healthy = server.bind("local://healthy-" + UUID.randomUUID(),
            PortalOptions.DEFAULT.withContext(1));
        final XioEngine client = engines.start(engines.builder("client").contexts(1));
        final Session lost = client.connect(failing.uri().withResource("echo").toString());
        final Session kept = client.connect(healthy.uri().withResource("echo").toString());
        final Context failed = server.contexts().get(0);

        failed.execute(() ->
        {
            throw new OutOfMemoryError("injected");
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> server.contexts().get(0) != failed);
        final Context fresh = server.contexts().get(0);
        assertThat(failed.state()).isEqualTo(ContextState.FAILED);
        assertThat(fresh.state()).isEqualTo(ContextState.RUNNING);
        assertThat(fresh.name()).isEqualTo(failed.name());
        assertThat(server.isOpen()).isTrue();
        assertThat(server.failedContexts()).containsExactly(failed);
        assertThat(events).anyMatch(event -> event.type() == SessionEvent.Type.CONTEXT_FAILED &&
            event.detail().contains("restarting it"));
        await().atMost(Duration.ofSeconds(10)).until(() -> xioThreads("phoenix-ctx-0") == 1);

        // The portal listens again at the same address, now served by the fresh context.
        assertThat(failing.isOpen()).isTrue();
        assertThat(failing.context()).isSameAs(fresh);
        await().atMost(Duration.ofSeconds(15)).until(() -> !lost.isOpen());
        try (Session again = client.connect(failing.uri().withResource("echo").toString());
             Message reply = again.request(Outbound.of(utf8("back"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("back");
        }
        // The other context's session never noticed.
        assertThat(kept.isOpen()).isTrue();
        try (Message reply = kept.request(Outbound.of(utf8("still here"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("still here");
        }
    }
}
