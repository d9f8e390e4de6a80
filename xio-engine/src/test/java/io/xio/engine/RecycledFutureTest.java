package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link CallOptions#withRecycledFuture()}: a future whose response is closed while its own completion
 * (CompletableFuture's stack, then the fast action) is still under way runs every action registered on it, and
 * neither its timer nor its late completion reaches the call that reuses it. Calls are answered by the test, so that
 * every dependent is registered before the response arrives.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RecycledFutureTest
{
    private static final CallOptions RECYCLED = CallOptions.DEFAULT.withRecycledFuture();

    private final TestEngines engines = new TestEngines();
    private final BlockingQueue<InboundRequest> held = new LinkedBlockingQueue<>();

    @AfterEach
    void close()
    {
        for (final InboundRequest request : held)
        {
            request.message().close(); // a failed test left it unanswered
        }
        engines.close();
    }

    private Session open() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("held", held::add);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final XioEngine client = engines.start(engines.builder("client").contexts(1));
        return client.connect(portal.uri().withResource("held").toString());
    }

    /** Answers the next held request with its own header. */
    private void answerNext() throws Exception
    {
        final InboundRequest request = held.poll(5, TimeUnit.SECONDS);
        assertThat(request).as("a request reached the server").isNotNull();
        final String header;
        try (Message message = request.message())
        {
            header = text(message.header());
        }
        request.respond(Outbound.of(utf8(header)));
    }

    /**
     * A fast action ({@code whenComplete}) registered first and a second {@code thenAccept} that closes the response
     * (on CompletableFuture's stack, so it runs first): the close recycles the future before {@code fire} ran, which
     * then finds the fast slot cleared. The first action never runs and its stage never completes.
     */
    @Test
    void bothActionsOfARecycledFutureRunWhenTheSecondClosesTheResponse() throws Exception
    {
        try (Session session = open())
        {
            final XioFuture<Message> future = session.request(Outbound.of(utf8("one")), RECYCLED);
            final CompletableFuture<Message> logged = future.whenComplete((response, failure) ->
            {
            });
            final CompletableFuture<Void> closed = future.thenAccept(Message::close);
            answerNext();

            closed.get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(logged::isDone);
        }
    }

    /**
     * {@code orTimeout} registers its timer's canceller through {@code whenComplete}: the fast slot. The action that
     * closes the response goes to the stack and recycles the future first, so the canceller never runs and the
     * timer fails whichever later call got the future from the pool.
     */
    @Test
    void anOrTimeoutOfARecycledFutureDoesNotFailTheCallThatReusesIt() throws Exception
    {
        try (Session session = open())
        {
            final XioFuture<Message> first = session.request(Outbound.of(utf8("one")), RECYCLED);
            first.orTimeout(300, TimeUnit.MILLISECONDS);
            final CompletableFuture<Message> closed = first.whenComplete((response, failure) -> response.close());
            answerNext();
            closed.get(5, TimeUnit.SECONDS);

            // Without the fix the close put the future back at once, so this call has it; with it, it may have it.
            final XioFuture<Message> second = session.request(Outbound.of(utf8("two")), RECYCLED);
            // Held by the server for longer than the first call's timeout: nothing may complete it meanwhile.
            await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(3)).until(() -> !second.isDone());
            answerNext();
            try (Message response = second.get(5, TimeUnit.SECONDS))
            {
                assertThat(text(response.header())).isEqualTo("two");
            }
        }
    }

    /**
     * The caller takes the response with {@code join()} and closes it, as the docs allow, while the completing
     * thread has not reached {@code fire} yet (here held in a plain dependent, as a preemption would hold it): the
     * future is recycled and handed to the next call, whose fast action that late {@code fire} then takes and runs
     * with the first call's (closed) response; the second response never reaches it.
     */
    @Test
    void aLateFireOfTheOldCompletionDoesNotRunTheNextCallsAction() throws Exception
    {
        try (Session session = open())
        {
            final XioFuture<Message> first = session.request(Outbound.of(utf8("one")), RECYCLED);
            final java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);
            first.thenRun(() ->
            {
                try
                {
                    resume.await(5, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            });
            answerNext();
            final Message firstResponse = first.join();
            assertThat(text(firstResponse.header())).isEqualTo("one");
            firstResponse.close();

            // Without the fix the close put the future back at once, so this call has it; with it, a new one.
            final XioFuture<Message> second = session.request(Outbound.of(utf8("two")), RECYCLED);
            final java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            second.whenComplete((response, failure) ->
            {
                seen.add(failure != null ? "failed" : response.isReleased() ? "released" : text(response.header()));
                if (response != null)
                {
                    response.close();
                }
            });
            resume.countDown();
            answerNext();
            await().atMost(Duration.ofSeconds(5)).until(() -> !seen.isEmpty());
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> seen.size() == 1);
            assertThat(seen).containsExactly("two");
        }
    }
}
