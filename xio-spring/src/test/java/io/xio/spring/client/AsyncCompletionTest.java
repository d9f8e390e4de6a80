package io.xio.spring.client;

import io.xio.annotation.XioMethod;
import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Outbound;
import io.xio.engine.ResponseListener;
import io.xio.engine.Session;
import io.xio.engine.support.Backoff;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;

/**
 * A call returning a future on the engine's listener path, over a session that fails each attempt as the test says:
 * what its caller gets when the last attempt failed.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AsyncCompletionTest
{
    interface Api
    {
        @XioMethod(idempotent = true)
        CompletableFuture<String> read(String key);
    }

    /** How each attempt fails, in order. */
    private final BlockingQueue<Throwable> failures = new LinkedBlockingQueue<>();

    private CompletableFuture<Object> call() throws Exception
    {
        final Session session = mock(Session.class);
        doAnswer(invocation ->
        {
            final Throwable failure = failures.poll();
            assertThat(failure).as("an attempt the test expected").isNotNull();
            invocation.<ResponseListener>getArgument(2).onFailure(0, failure);
            return 0L;
        }).when(session).request(any(Outbound.class), any(CallOptions.class), any(ResponseListener.class));
        final AsyncCompletion completion = new AsyncCompletion(new AttemptSessions(new OneSession(session)),
            new RetryPolicy(3, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2))),
            new ResponseDecoder(new JacksonXioCodec(new JsonMapper())),
            new CallFailures(Api.class, "tcp://h:1/kv", new AllowedExceptions(List.of())), Runnable::run);
        final ClientMethodState state = new ClientMethodState(
            ServiceMethod.of(Api.class.getMethod("read", String.class), Api.class), CallRecorder.NONE,
            new JacksonXioCodec(new JsonMapper()), Duration.ofSeconds(10));
        return completion.listening(state, Outbound.of(new byte[] {1}), null, state.options(state.timeout, false),
            null, null, System.nanoTime());
    }

    private static Throwable failure(final CompletableFuture<Object> call) throws InterruptedException
    {
        try
        {
            call.get(10, TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            return ex.getCause();
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            throw new AssertionError("the call did not end", ex);
        }
        throw new AssertionError("the call succeeded");
    }

    @Test
    void aCallAnEarlierAttemptOfWhichWasWrittenMayHaveRunWhateverItsLastAttemptSays() throws Exception
    {
        final ConnectionException refused = new ConnectionException("no connection up", null, false);
        failures.add(new ConnectionException("connection lost", null, true));
        failures.add(refused);
        failures.add(refused);

        final Throwable failure = failure(call());

        assertThat(failure).isInstanceOf(ConnectionException.class).isNotSameAs(refused)
            .hasMessage("no connection up (the request was written: it may have run)");
        assertThat(((ConnectionException)failure).mayHaveRun()).as("the first attempt was written").isTrue();
        assertThat(failures).as("every attempt ran").isEmpty();
    }

    @Test
    void aCallNoAttemptOfWhichWasWrittenDidNotRun() throws Exception
    {
        final ConnectionException refused = new ConnectionException("no connection up", null, false);
        failures.add(refused);
        failures.add(refused);
        failures.add(refused);

        assertThat(failure(call())).isSameAs(refused);
    }

    /** One session, open, with another instance to go to. */
    private static final class OneSession implements ClientSessions
    {
        private final Session session;

        OneSession(final Session session)
        {
            this.session = session;
        }

        @Override
        public String target()
        {
            return "tcp://h:1/kv";
        }

        @Override
        public String resource()
        {
            return "kv";
        }

        @Override
        public String transport()
        {
            return "tcp";
        }

        @Override
        public CompletableFuture<Session> session()
        {
            return CompletableFuture.completedFuture(session);
        }

        @Override
        public boolean elsewhere()
        {
            return true;
        }

        @Override
        public String lastFailure()
        {
            return null;
        }

        @Override
        public XioClientStatus status(final String name, final Class<?> api)
        {
            throw new UnsupportedOperationException();
        }
    }
}
