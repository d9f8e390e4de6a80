package io.xio.engine;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cancelled request's future throws its {@link RequestCancelledException} from every way of waiting, on every JDK
 * (from JDK 25 on, CompletableFuture wraps the stored CancellationException in a new one; CI runs 17 and 25).
 */
class XioFutureTest
{
    @Test
    void aCancelledFutureThrowsRequestCancelledExceptionFromGetJoinAndGetNow()
    {
        final XioFuture<Object> future = new XioFuture<>(7, false, 0);
        future.cancel(false);

        assertThatThrownBy(future::get).isInstanceOf(RequestCancelledException.class).hasMessageContaining("7");
        assertThatThrownBy(() -> future.get(1, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
        assertThatThrownBy(future::join).isInstanceOf(RequestCancelledException.class);
        assertThatThrownBy(() -> future.getNow(null)).isInstanceOf(RequestCancelledException.class);
    }

    @Test
    void aRequestFailedAsCancelledThrowsTheSameExceptionItWasFailedWith()
    {
        final XioFuture<Object> future = new XioFuture<>(8, true, 1_000);
        final RequestCancelledException cancelled = new RequestCancelledException("request 8 was cancelled");
        future.completeExceptionally(cancelled);

        assertThatThrownBy(future::get).isSameAs(cancelled);
        assertThatThrownBy(future::join).isSameAs(cancelled);
        assertThatThrownBy(() -> future.getNow(null)).isSameAs(cancelled);
    }
}
