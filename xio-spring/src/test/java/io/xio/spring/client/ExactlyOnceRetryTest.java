package io.xio.spring.client;

import io.xio.annotation.XioMethod;
import io.xio.engine.BackPressureException;
import io.xio.engine.ConnectionException;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.protocol.Status;
import io.xio.engine.support.Backoff;
import io.xio.spring.method.ServiceMethod;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * An exactly-once call's attempts: retried as an idempotent call's are, and after the server's back-pressure refusal
 * too (another attempt of its key still ran there); each attempt after the first carries the first one's key and says
 * how many went before.
 */
class ExactlyOnceRetryTest
{
    private static final String URI = "tcp://127.0.0.1:1/x";

    interface Api
    {
        @XioMethod(exactlyOnce = true)
        String pay(String id);

        @XioMethod(idempotent = true)
        String read(String id);
    }

    private static ServiceMethod method(final String name) throws NoSuchMethodException
    {
        return ServiceMethod.of(Api.class.getMethod(name, String.class), Api.class);
    }

    @Test
    void anExactlyOnceCallIsTriedAgainAfterTheServersRefusalAnIdempotentOneIsNot() throws Exception
    {
        final RetryPolicy policy = new RetryPolicy(3, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2)));
        final BackPressureException refused = new BackPressureException("busy", new RemoteException(URI, 2, null,
            null));
        assertThat(policy.attempts(method("pay"))).isEqualTo(3);
        assertThat(policy.forCall(method("pay")).retries(refused)).isTrue();
        assertThat(policy.forCall(method("read")).retries(refused)).isFalse();
        assertThat(policy.forCall(method("pay")).retries(new BackPressureException("this side is full")))
            .as("refused on this side, for lack of room: not the server's answer").isFalse();
        assertThat(policy.forCall(method("pay")).retries(new IllegalStateException("the service's")))
            .isFalse();
    }

    @Test
    void everyAttemptOfAnExactlyOnceCallCarriesTheFirstAttemptsKey() throws Exception
    {
        final ServiceMethod pay = method("pay");
        final Metadata first = RequestEncoder.firstAttempt(pay, null);
        final String key = IdempotencyKeys.of(first);
        assertThat(key).isNotNull();
        assertThat(IdempotencyKeys.firstUse(first)).isTrue();
        final Metadata kept = new RequestEncoder(null, new RetryPolicy(3, Backoff.of(Duration.ofMillis(1),
            Duration.ofMillis(2)))).keptForResend(pay, first);
        final Outbound message = Outbound.of(ByteBuffer.wrap(new byte[] {1})).metadata(first);
        final List<Metadata> retries = new ArrayList<>();
        for (int previous = 1; previous <= 2; previous++)
        {
            retries.add(RequestEncoder.again(message, kept, true, previous).metadata());
        }
        assertThat(retries).extracting(IdempotencyKeys::of).containsOnly(key);
        assertThat(retries).extracting(IdempotencyKeys::previousAttempts).containsExactly(1, 2);
        assertThat(IdempotencyKeys.of(RequestEncoder.firstAttempt(pay, null))).as("a key per call").isNotEqualTo(key);
    }

    @Test
    void anExactlyOnceCallKeepsItsKeyWithOneAttemptAndEndsUnsettledWithIt() throws Exception
    {
        final ServiceMethod pay = method("pay");
        final RetryPolicy once = new RetryPolicy(1, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2)));
        final Metadata first = RequestEncoder.firstAttempt(pay, null);
        final Metadata kept = new RequestEncoder(null, once).keptForResend(pay, first);
        assertThat(RequestEncoder.exactlyOnceKey(pay, kept)).isEqualTo(IdempotencyKeys.of(first));
        assertThat(new RequestEncoder(null, once).keptForResend(method("read"), new Metadata().put("a", "b")))
            .as("another call with one attempt is never sent again").isNull();

        final ConnectionException lost = new ConnectionException("connection lost", null, true);
        final Throwable failure = catchThrowable(() -> RetryingCall.callAfter(once, once.attempts(pay),
            System.nanoTime() + Duration.ofSeconds(10).toNanos(), lost, RequestEncoder.exactlyOnceKey(pay, kept),
            remaining ->
            {
                throw new AssertionError("one attempt only");
            }));
        assertThat(failure).isInstanceOf(ExactlyOnceUnsettledException.class).hasCause(lost);
        assertThat(((ExactlyOnceUnsettledException)failure).idempotencyKey()).isEqualTo(IdempotencyKeys.of(first));
    }

    @Test
    void theApplicationsOwnKeyIsKept() throws Exception
    {
        final Metadata own = new Metadata().put(IdempotencyKeys.METADATA_KEY, "order-42");
        final Metadata first = RequestEncoder.firstAttempt(method("pay"), own);
        assertThat(IdempotencyKeys.of(first)).isEqualTo("order-42");
        assertThat(IdempotencyKeys.firstUse(first)).as("it may have been sent before: claimed first").isFalse();
        assertThat(RequestEncoder.firstAttempt(method("read"), own)).isSameAs(own);
    }

    @Test
    void anExactlyOnceCallTheLastServerRefusedEndsUnsettledWithItsKeyNotWithRetryLater()
    {
        final RetryPolicy policy = new RetryPolicy(3, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2)), true);
        final BackPressureException refused = new BackPressureException("turned away unrun: retry later",
            new RemoteException(URI, 2, null, null));

        final Throwable blocking = catchThrowable(() -> RetryingCall.callAfter(policy, 3, System.nanoTime() +
            Duration.ofSeconds(10).toNanos(), refused, "order-42", remaining ->
            {
                throw refused;
            }));
        final Throwable async = CallFailures.unwrap(catchThrowable(RetryingCall.callAsync(policy, 3,
            Duration.ofSeconds(10), "order-42", Runnable::run,
            remaining -> CompletableFuture.failedFuture(refused))::join));

        for (final Throwable failure : List.of(blocking, async))
        {
            assertThat(failure).isInstanceOf(ExactlyOnceUnsettledException.class).hasCause(refused)
                .hasMessageContaining("order-42").hasMessageContaining("may have run");
            assertThat(((ExactlyOnceUnsettledException)failure).idempotencyKey()).isEqualTo("order-42");
            assertThat(((ConnectionException)failure).mayHaveRun()).isTrue();
        }
        assertThat(RetryingCall.ending(refused, false, null)).as("not exactly-once: as it was").isSameAs(refused);
    }

    @Test
    void anExactlyOnceCallWhoseServerLostItsAnswerEndsUnsettledWithItsKey()
    {
        final RetryPolicy policy = new RetryPolicy(2, Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2)), true);
        final RemoteException lost = new RemoteException(URI, Status.RESPONSE_LOST, null, null);

        final Throwable blocking = catchThrowable(() -> RetryingCall.callAfter(policy, 2, System.nanoTime() +
            Duration.ofSeconds(10).toNanos(), lost, "order-7", remaining ->
            {
                throw lost;
            }));
        final Throwable async = CallFailures.unwrap(catchThrowable(RetryingCall.callAsync(policy, 2,
            Duration.ofSeconds(10), "order-7", Runnable::run,
            remaining -> CompletableFuture.failedFuture(lost))::join));

        for (final Throwable failure : List.of(blocking, async))
        {
            assertThat(failure).as("it ran: its key gets its answer").isInstanceOf(ExactlyOnceUnsettledException.class)
                .hasCause(lost);
            assertThat(((ExactlyOnceUnsettledException)failure).idempotencyKey()).isEqualTo("order-7");
        }
        assertThat(RetryingCall.ending(lost, false, null)).as("not exactly-once: as it was").isSameAs(lost);
    }

    @Test
    void anExactlyOnceCallWhoseCallerWasInterruptedEndsUnsettledWhenAnAttemptWasSent()
    {
        final CallerInterruptedException waitingForTheAnswer = new CallerInterruptedException("interrupted while " +
            "waiting for pay", new InterruptedException(), true);
        final CallerInterruptedException waitingForASession = new CallerInterruptedException("interrupted while " +
            "waiting for a session to x", new InterruptedException(), false);

        assertThat(RetryingCall.ending(waitingForTheAnswer, false, "k"))
            .isInstanceOf(ExactlyOnceUnsettledException.class).hasCause(waitingForTheAnswer);
        assertThat(RetryingCall.ending(waitingForASession, false, "k")).as("sent nowhere").isSameAs(waitingForASession);
        assertThat(RetryingCall.ending(waitingForASession, true, "k")).as("an earlier attempt may have run")
            .isInstanceOf(ExactlyOnceUnsettledException.class);
        assertThat(RetryingCall.ending(waitingForTheAnswer, true, null)).as("not exactly-once: as it was")
            .isSameAs(waitingForTheAnswer);
    }

    @Test
    void anExactlyOnceCallEndsUnsettledOnlyWhenItMayHaveRun()
    {
        final ConnectionException neverWritten = new ConnectionException("no connection up", null, false);
        final ConnectionException written = new ConnectionException("connection lost", null, true);
        final RemoteException answer = new RemoteException(URI, 3, "java.lang.IllegalStateException", "the service's");
        final BackPressureException fullHere = new BackPressureException("this side is full");

        assertThat(RetryingCall.ending(neverWritten, false, "k")).as("ran nowhere").isSameAs(neverWritten);
        assertThat(RetryingCall.ending(fullHere, false, "k")).as("never sent").isSameAs(fullHere);
        assertThat(RetryingCall.ending(answer, true, "k")).as("the call's answer settles it").isSameAs(answer);
        assertThat(RetryingCall.ending(written, false, "k")).isInstanceOf(ExactlyOnceUnsettledException.class);
        assertThat(RetryingCall.ending(neverWritten, true, "k")).as("an earlier attempt may have run")
            .isInstanceOf(ExactlyOnceUnsettledException.class);
        assertThat(RetryingCall.ending(fullHere, true, "k")).isInstanceOf(ExactlyOnceUnsettledException.class);
    }

    @Test
    void anExactlyOnceCallWhoseDeadlinePassedEndsUnsettledWithItsKeyWhenItMayHaveRun()
    {
        final XioTimeoutException held = new XioTimeoutException("timed out; the peer was told to cancel it", null,
            true);
        final XioTimeoutException notRun = new XioTimeoutException("not run by the server: its deadline passed",
            null, false);

        final Throwable heldPastTheDeadline = RetryingCall.ending(held, false, "order-7");
        assertThat(heldPastTheDeadline).isInstanceOf(ExactlyOnceUnsettledException.class).hasCause(held)
            .hasMessageContaining("order-7").hasMessageContaining("may have run");
        assertThat(((ExactlyOnceUnsettledException)heldPastTheDeadline).idempotencyKey()).isEqualTo("order-7");
        assertThat(RetryingCall.ending(notRun, true, "order-7")).as("an earlier attempt may have run")
            .isInstanceOf(ExactlyOnceUnsettledException.class).hasCause(notRun);
        assertThat(RetryingCall.ending(notRun, false, "order-7")).as("ran nowhere: a timeout").isSameAs(notRun);

        assertThat(RetryingCall.ending(held, true, null)).as("not exactly-once: the timeout").isSameAs(held);
        final Throwable afterAWrittenAttempt = RetryingCall.ending(notRun, true, null);
        assertThat(afterAWrittenAttempt).isInstanceOf(XioTimeoutException.class).hasCause(notRun)
            .hasMessageEndingWith("(an earlier attempt was written: it may have run)");
        assertThat(((XioTimeoutException)afterAWrittenAttempt).mayHaveRun()).isTrue();
    }
}
