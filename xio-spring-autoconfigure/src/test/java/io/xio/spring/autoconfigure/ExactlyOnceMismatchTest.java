package io.xio.spring.autoconfigure;

import io.xio.annotation.XioClient;
import io.xio.annotation.XioMethod;
import io.xio.annotation.XioService;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.ExactlyOnceFixtures.KeysSeen;
import io.xio.spring.autoconfigure.ExactlyOnceFixtures.OwnKey;
import io.xio.spring.call.XioClientInterceptor;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.client.XioRemoteException;
import io.xio.spring.error.XioErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Configuration;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.port;
import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A client whose interface marks a method exactly-once, against a server whose method is not (it keeps no ledger for
 * it): the first attempt of a key the client made runs, as any call; an attempt that may follow an earlier run (a
 * retry after a lost connection, an application's own key) is refused unrun, with an error that says why and that
 * no retry mends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExactlyOnceMismatchTest
{
    /** The server's API: a plain write, not exactly-once. */
    public interface Notes
    {
        String write(String id);
    }

    /** The client's view of it, which takes the write for exactly-once. */
    @XioClient("notes")
    public interface ExactlyOnceNotes
    {
        @XioMethod(exactlyOnce = true)
        String write(String id);
    }

    /** Counts its runs; the next write after {@link #goAwayNext()} closes every session before it answers. */
    @XioService("notes")
    public static class NotesService implements Notes
    {
        private final XioEngine engine;
        private final AtomicInteger runs = new AtomicInteger();
        private final AtomicBoolean goAway = new AtomicBoolean();

        NotesService(final XioEngine engine)
        {
            this.engine = engine;
        }

        @Override
        public String write(final String id)
        {
            final int run = runs.incrementAndGet();
            if (goAway.getAndSet(false))
            {
                engine.sessions().forEach(Session::close); // ran, and its caller gets no answer
            }
            return id + " " + run;
        }

        void goAwayNext()
        {
            goAway.set(true);
        }

        int runs()
        {
            return runs.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = ExactlyOnceNotes.class)
    static class ClientApplication
    {
    }

    @Configuration(proxyBeanMethods = false)
    static class ServerApplication
    {
    }

    private final OwnKey ownKey = new OwnKey();
    private final KeysSeen keysSeen = new KeysSeen();

    @Test
    void theFirstAttemptRunsAndARetryAfterALostConnectionIsRefusedUnrunAsAFailedPrecondition()
    {
        withClient((service, notes) ->
        {
            assertThat(notes.write("n1")).isEqualTo("n1 1");
            assertThat(keysSeen.keys).doesNotContain("null");

            service.goAwayNext();
            final Throwable refused = catchThrowable(() -> notes.write("n2"));
            assertThat(service.runs()).as("the lost attempt ran; its retry did not").isEqualTo(2);
            assertThat(keysSeen.previousAttempts.subList(1, 3)).containsExactly("null", "1");
            assertRefused(refused);
        });
    }

    @Test
    void anApplicationsOwnKeyWhichMayHaveBeenSentBeforeIsRefusedAtItsFirstAttempt()
    {
        withClient((service, notes) ->
        {
            ownKey.key = "note-1";
            assertRefused(catchThrowable(() -> notes.write("n3")));
            assertThat(service.runs()).isZero();
            assertThat(keysSeen.previousAttempts).containsExactly("0");
        });
    }

    private static void assertRefused(final Throwable refused)
    {
        assertThat(refused).as("a JDK exception, rebuilt").isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("write(String) is not exactly-once on this server");
        assertThat(refused.getCause()).isInstanceOfSatisfying(XioRemoteException.class,
            remote -> assertThat(remote.code()).isEqualTo(XioErrorCode.FAILED_PRECONDITION));
    }

    /** A test given the server's service and the client's proxy. */
    @FunctionalInterface
    private interface WithClient
    {
        void run(NotesService service, ExactlyOnceNotes notes) throws Exception;
    }

    private void withClient(final WithClient test)
    {
        runner(ServerApplication.class).withBean(NotesService.class)
            .withBean(XioServerInterceptor.class, () -> keysSeen)
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0")
            .run(server ->
            {
                assertThat(server).hasNotFailed();
                runner(ClientApplication.class).withBean(XioClientInterceptor.class, () -> ownKey)
                    .withPropertyValues("xio.clients.notes.uri=tcp://127.0.0.1:" + port(server) + "/notes",
                        "xio.client.retry.initial-backoff=10ms", "xio.client.retry.max-backoff=20ms")
                    .run(client ->
                    {
                        assertThat(client).hasNotFailed();
                        test.run(server.getBean(NotesService.class), client.getBean(ExactlyOnceNotes.class));
                    });
            });
    }
}
