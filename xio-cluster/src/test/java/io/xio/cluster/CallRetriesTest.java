package io.xio.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.support.Backoff;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A call's next attempt on a fake clock: it waits for its timer on the client's thread, its deadline cuts the wait
 * short, and a close ends the calls waiting. The client is a stand-in that never finds a session, so each attempt
 * only asks for one.
 */
class CallRetriesTest
{
    private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualClientThread thread = new ManualClientThread();
    /** The client's closed flag, which its close sets before it stops its thread and the retries. */
    private volatile boolean closed;
    private final CallRetries retries = new CallRetries(thread, () -> closed,
        () -> new ConnectionException("service client of kv is closed"));
    private final Client client = new Client();

    /** A service client whose calls never find a session: it counts how often they ask for one. */
    private final class Client implements ServiceCall.Client
    {
        int asked;

        @Override
        public String service()
        {
            return "kv";
        }

        @Override
        public NanoClock clock()
        {
            return thread.clock;
        }

        @Override
        public long defaultTimeoutNanos()
        {
            return TimeUnit.MINUTES.toNanos(1);
        }

        @Override
        public int maxAttempts()
        {
            return 3;
        }

        @Override
        public Backoff backoff()
        {
            return Backoff.of(Duration.ofMillis(10), Duration.ofMillis(500));
        }

        @Override
        public CompletableFuture<Session> session(final long key)
        {
            asked++;
            return new CompletableFuture<>();
        }

        @Override
        public boolean hasAlternatives()
        {
            return false;
        }

        @Override
        public void retryLater(final ServiceCall<?> call, final long delayNanos)
        {
            retries.retryLater(call, delayNanos);
        }

        @Override
        public String describe()
        {
            return "none";
        }
    }

    private ServiceCall<Message> call(final CallOptions options)
    {
        return new ServiceCall<>(client, Outbound.of(utf8("read")), options, 0, false);
    }

    @Test
    void aCallIsTriedAgainWhenItsTimerFiresOnTheClientsThreadAndNotBefore()
    {
        final ServiceCall<Message> call = call(CallOptions.DEFAULT);
        call.again(100 * MILLI);
        thread.advance(100 * MILLI - 1);
        assertThat(client.asked).isZero();
        thread.advance(1);
        assertThat(client.asked).isOne();
        assertThat(call.result).isNotDone();
    }

    @Test
    void aCallsDeadlineCutsItsWaitShortAndEndsIt()
    {
        final ServiceCall<Message> call = call(CallOptions.timeout(Duration.ofSeconds(1)));
        thread.advance(400 * MILLI);
        call.again(TimeUnit.SECONDS.toNanos(5)); // longer than the 600 ms left
        thread.advance(600 * MILLI);
        assertThat(client.asked).isZero();
        assertThatThrownBy(() -> call.result.get(0, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(XioTimeoutException.class)
            .hasMessage("the call's 1000 ms passed before an endpoint of kv could take it");
    }

    @Test
    void closingEndsTheCallsWaitingAndThoseThatWouldWaitAfterIt()
    {
        final ServiceCall<Message> waiting = call(CallOptions.DEFAULT);
        waiting.again(100 * MILLI);
        closed = true;
        thread.shutdown();
        retries.close();
        assertThatThrownBy(() -> waiting.result.get(0, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(ConnectionException.class).hasMessageStartingWith("service client of kv is closed")
            .hasMessageEndingWith("(the request was never written: it did not run)")
            .satisfies(ex -> assertThat(((ConnectionException)ex).mayHaveRun()).as("never sent").isFalse());

        final ServiceCall<Message> late = call(CallOptions.DEFAULT);
        late.again(0);
        assertThat(late.result).isCompletedExceptionally();
        thread.advance(TimeUnit.MINUTES.toNanos(1));
        assertThat(client.asked).as("neither was tried again").isZero();
    }
}
