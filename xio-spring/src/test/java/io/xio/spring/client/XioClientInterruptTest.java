package io.xio.spring.client;

import io.xio.engine.XioException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** A client call's caller interrupted while its answer or failure arrives: the interrupt status always survives. */
class XioClientInterruptTest
{
    @AfterEach
    void clearInterrupt()
    {
        Thread.interrupted();
    }

    @Test
    void aFailureThatArrivedJustThenKeepsTheInterruptAndTheInterruptedException()
    {
        // cancel(true) returns false: the future failed already; getNow would throw that failure.
        final CompletableFuture<Object> failed = CompletableFuture.failedFuture(new IllegalStateException("lost"));
        final InterruptedException cause = new InterruptedException();

        final XioException thrown = XioClientInvocationHandler.interrupted(failed, "store", cause);

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThat(thrown).hasMessageContaining("store").hasCause(cause);
    }

    @Test
    void anAnswerThatArrivedJustThenIsClosedAndTheInterruptKept()
    {
        final AtomicBoolean closed = new AtomicBoolean();
        final CompletableFuture<AutoCloseable> answered = CompletableFuture.completedFuture(() -> closed.set(true));

        XioClientInvocationHandler.interrupted(answered, "read", new InterruptedException());

        assertThat(closed).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void anAnswerThatFailsToCloseIsSuppressedAndTheInterruptKept()
    {
        final IOException closing = new IOException("close failed");
        final CompletableFuture<AutoCloseable> answered = CompletableFuture.completedFuture(() ->
        {
            throw closing;
        });

        final XioException thrown =
            XioClientInvocationHandler.interrupted(answered, "read", new InterruptedException());

        assertThat(thrown.getSuppressed()).containsExactly(closing);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void aPendingCallIsCancelled()
    {
        final CompletableFuture<Object> pending = new CompletableFuture<>();

        XioClientInvocationHandler.interrupted(pending, "read", new InterruptedException());

        assertThat(pending).isCancelled();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }
}
