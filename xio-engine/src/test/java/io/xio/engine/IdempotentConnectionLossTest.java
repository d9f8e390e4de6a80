package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link CallOptions#idempotent()} on a session that loses its last connection: an idempotent call in flight fails
 * at once with {@link ConnectionException} (its caller may send it to another server instead of waiting for a
 * re-attach that may never come), through the future and the listener API alike; other calls wait for the
 * re-attach and are answered once, as before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdempotentConnectionLossTest
{
    private final TestEngines engines = new TestEngines();
    /** Requests the "hold" service has not answered yet. */
    private final HeldRequests held = new HeldRequests();

    @AfterEach
    void close()
    {
        held.releaseAll();
        engines.close();
    }


    @Test
    void anIdempotentCallInFlightFailsAtOnceWhenTheLastConnectionIsLostOthersWaitForTheReattach() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("hold", held::add);
        final Portal portal = server.bind("tcp://127.0.0.1:0");
        // A re-attach far away: what fails meanwhile did not wait for it.
        final XioEngine client = engines.start(engines.builder("client").reconnectTimeout(Duration.ofMinutes(5)));
        final Session session = client.connect(portal.uri().withResource("hold").toString());
        final int connections = session.connectionCount();
        final CallOptions idempotent = CallOptions.timeout(Duration.ofMinutes(2)).withIdempotent(true);
        final XioFuture<Message> read = session.request(Outbound.of(utf8("read")), idempotent);
        final CompletableFuture<Throwable> listened = new CompletableFuture<>();
        session.request(Outbound.of(utf8("listened")), idempotent, new ResponseListener()
        {
            @Override
            public void onResponse(final long requestId, final Message response)
            {
                response.close();
                listened.complete(null);
            }

            @Override
            public void onFailure(final long requestId, final Throwable failure)
            {
                listened.complete(failure);
            }
        });
        final XioFuture<Message> write = session.request(Outbound.of(utf8("write")),
            CallOptions.timeout(Duration.ofMinutes(2)));
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 3);

        session.abortConnections();

        assertThatThrownBy(() -> read.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(ConnectionException.class).hasMessageContaining("idempotent");
        assertThat(listened.get(10, TimeUnit.SECONDS)).isInstanceOf(ConnectionException.class);
        assertThat(write).as("not idempotent: waits for the re-attach").isNotDone();
        await().atMost(Duration.ofSeconds(10)).until(() -> session.connectionCount() == connections);
        held.releaseAll();
        try (Message response = write.get(10, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("write");
        }
        assertThat(session.isOpen()).isTrue();
        // The session goes on: a new idempotent call is answered.
        final XioFuture<Message> again = session.request(Outbound.of(utf8("again")), idempotent);
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
        held.releaseAll();
        try (Message response = again.get(10, TimeUnit.SECONDS))
        {
            assertThat(text(response.header())).isEqualTo("again");
        }
    }
}
