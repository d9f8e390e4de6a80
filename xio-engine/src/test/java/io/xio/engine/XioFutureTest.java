package io.xio.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cancelled request's future throws its {@link RequestCancelledException} from every way of waiting, on every JDK
 * (from JDK 25 on, CompletableFuture wraps the stored CancellationException in a new one; CI runs 17 and 25); and
 * the one fast action ({@code whenComplete}, {@code thenAccept}, {@code handle} kept in a field) keeps the
 * CompletionStage contract.
 */
class XioFutureTest
{
    @Test
    void aCancelledFutureThrowsRequestCancelledExceptionFromGetJoinAndGetNow()
    {
        final XioFuture<Object> future = new XioFuture<>(7, false);
        future.cancel(false);

        assertThatThrownBy(future::get).isInstanceOf(RequestCancelledException.class).hasMessageContaining("7");
        assertThatThrownBy(() -> future.get(1, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
        assertThatThrownBy(future::join).isInstanceOf(RequestCancelledException.class);
        assertThatThrownBy(() -> future.getNow(null)).isInstanceOf(RequestCancelledException.class);
    }

    @Test
    void aRequestFailedAsCancelledThrowsTheSameExceptionItWasFailedWith()
    {
        final XioFuture<Object> future = new XioFuture<>(8, true);
        final RequestCancelledException cancelled = new RequestCancelledException("request 8 was cancelled");
        future.completeExceptionally(cancelled);

        assertThatThrownBy(future::get).isSameAs(cancelled);
        assertThatThrownBy(future::join).isSameAs(cancelled);
        assertThatThrownBy(() -> future.getNow(null)).isSameAs(cancelled);
    }

    @Test
    void aFastWhenCompleteRunsOnCompletionAndItsStageCompletesAfterIt()
    {
        final XioFuture<String> future = new XioFuture<>(1, false);
        final List<String> seen = new ArrayList<>();
        final CompletableFuture<String> stage = future.whenComplete((value, failure) -> seen.add(value + failure));

        assertThat(stage).isNotSameAs(future).isNotDone();
        assertThat(future.getNumberOfDependents()).isEqualTo(1);
        assertThat(future.complete("v")).isTrue();
        assertThat(seen).containsExactly("vnull");
        assertThat(stage.join()).isEqualTo("v");
        assertThat(future.complete("again")).isFalse();
        assertThat(seen).hasSize(1);
    }

    @Test
    void aFastActionThatThrowsFailsItsStageAndAFailureItSawKeepsItsCause()
    {
        final IllegalStateException thrown = new IllegalStateException("action");
        final XioFuture<String> succeeding = new XioFuture<>(1, false);
        final CompletableFuture<String> afterSuccess = succeeding.whenComplete((value, failure) ->
        {
            throw thrown;
        });
        succeeding.complete("v");
        assertThatThrownBy(afterSuccess::join).isInstanceOf(CompletionException.class).hasCause(thrown);

        final XioFuture<String> failing = new XioFuture<>(2, false);
        final IllegalArgumentException cause = new IllegalArgumentException("call");
        final CompletableFuture<String> afterFailure = failing.whenComplete((value, failure) ->
        {
            throw thrown;
        });
        failing.completeExceptionally(cause);
        assertThatThrownBy(afterFailure::join).isInstanceOf(CompletionException.class).hasCause(cause);
        assertThat(cause.getSuppressed()).containsExactly(thrown);

        final XioFuture<String> accepting = new XioFuture<>(3, false);
        final CompletableFuture<Void> accepted = accepting.thenAccept(value ->
        {
            throw thrown;
        });
        accepting.complete("v");
        assertThatThrownBy(accepted::join).isInstanceOf(CompletionException.class).hasCause(thrown);
    }

    @Test
    void fastThenAcceptAndHandleFollowTheirCompletionStageContracts()
    {
        final XioFuture<String> failing = new XioFuture<>(1, false);
        final AtomicInteger ran = new AtomicInteger();
        final CompletableFuture<Void> accepted = failing.thenAccept(value -> ran.incrementAndGet());
        final IllegalArgumentException cause = new IllegalArgumentException("call");
        failing.completeExceptionally(cause);
        assertThat(ran).hasValue(0); // a failure skips thenAccept's action and passes on
        assertThatThrownBy(accepted::join).isInstanceOf(CompletionException.class).hasCause(cause);

        final XioFuture<String> handled = new XioFuture<>(2, false);
        final CompletableFuture<Integer> length = handled.handle((value, failure) -> value.length());
        handled.complete("four");
        assertThat(length.join()).isEqualTo(4);
    }

    @Test
    void onADoneFutureAndForASecondActionCompletableFuturesOwnWayRuns()
    {
        final XioFuture<String> done = new XioFuture<>(1, false);
        done.complete("v");
        final AtomicReference<Thread> ranOn = new AtomicReference<>();
        final CompletableFuture<String> stage =
            done.whenComplete((value, failure) -> ranOn.set(Thread.currentThread()));
        assertThat(ranOn).hasValue(Thread.currentThread());
        assertThat(stage.join()).isEqualTo("v");

        final XioFuture<String> twice = new XioFuture<>(2, false);
        final List<String> order = new ArrayList<>();
        final CompletableFuture<String> fast = twice.whenComplete((value, failure) -> order.add("fast"));
        final CompletableFuture<String> usual = twice.whenComplete((value, failure) -> order.add("usual"));
        twice.complete("v");
        assertThat(order).containsExactly("usual", "fast"); // the stack's dependents first, as documented
        assertThat(fast.join()).isEqualTo("v");
        assertThat(usual.join()).isEqualTo("v");
    }

    @Test
    void aCancelReachesTheFastActionWithTheRequestCancelledException()
    {
        final XioFuture<String> future = new XioFuture<>(9, false);
        final AtomicReference<Throwable> seen = new AtomicReference<>();
        final CompletableFuture<String> stage = future.whenComplete((value, failure) -> seen.set(failure));

        assertThat(future.cancel(false)).isTrue();
        assertThat(seen.get()).isInstanceOf(RequestCancelledException.class);
        assertThatThrownBy(stage::join).isInstanceOf(CompletionException.class)
            .hasCauseInstanceOf(RequestCancelledException.class);
        assertThat(future.cancelOutcome().join()).isFalse(); // a future of no session: nothing to abort
    }

    @Test
    void aRegistrationRacingTheCompletionRunsTheActionExactlyOnce() throws Exception
    {
        final CyclicBarrier start = new CyclicBarrier(2);
        for (int i = 0; i < 2_000; i++)
        {
            final XioFuture<Integer> future = new XioFuture<>(i + 1, false);
            final AtomicInteger runs = new AtomicInteger();
            final Integer value = i;
            final Thread completer = new Thread(() ->
            {
                await(start);
                future.complete(value);
            });
            completer.start();
            await(start);
            final CompletableFuture<Integer> stage = future.whenComplete((v, failure) -> runs.incrementAndGet());
            completer.join();
            assertThat(stage.get(5, TimeUnit.SECONDS)).isEqualTo(value);
            assertThat(runs).hasValue(1);
        }
    }

    private static void await(final CyclicBarrier barrier)
    {
        try
        {
            barrier.await(5, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
