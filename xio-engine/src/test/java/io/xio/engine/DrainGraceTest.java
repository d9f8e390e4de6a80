package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link XioEngine#drain}'s grace through real engines: a grace meant as "no limit", too long to add to the clock in
 * nanoseconds, neither ends the drain nor cuts the calls in flight.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DrainGraceTest
{
    private final TestEngines engines = new TestEngines();
    private final HeldRequests held = new HeldRequests();

    @AfterEach
    void close()
    {
        engines.close();
    }

    /** A grace meant as "no limit" overflows loop.nanoTime() + grace.toNanos(): every session is closed at once. */
    @Test
    void aVeryLongGraceDoesNotCloseTheSessionsAtOnce() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("hold", held::add);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        final Session session = engines.start("client").connect(portal.uri().withResource("hold").toString());
        final XioFuture<Message> call = session.request(Outbound.of(utf8("kept")),
            CallOptions.timeout(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);

        final CompletableFuture<Void> drained = server.drain(List.of(), Duration.ofNanos(Long.MAX_VALUE));
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        {
            assertThat(drained).as("the grace has not passed").isNotDone();
            assertThat(call).as("the call in flight is not cut").isNotDone();
        });
        final InboundRequest request = held.poll();
        request.message().close();
        request.respond(Outbound.of(utf8("kept")));
        call.get(10, TimeUnit.SECONDS).close();
    }
}
