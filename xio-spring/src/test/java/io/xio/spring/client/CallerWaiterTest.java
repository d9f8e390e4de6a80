package io.xio.spring.client;

import io.xio.engine.XioEngine;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Which threads a proxy call takes for context threads, where blocking calls are refused. */
class CallerWaiterTest
{
    @Test
    void aThreadThatStartsRunningAManualContextIsOneOfItsThreadsFromThen() throws Exception
    {
        try (XioEngine engine = XioEngine.builder().name("waiter-manual").contexts(1).manualContexts(true).build())
        {
            final CallerWaiter waiter = new CallerWaiter();
            assertThat(waiter.onContextThread(engine)).isFalse();

            engine.contexts().get(0).doWork();

            assertThat(waiter.onContextThread(engine)).as("after it ran the context").isTrue();
        }
    }

    @Test
    void aContextsOwnThreadIsOneAndTheCallersIsNot() throws Exception
    {
        try (XioEngine engine = XioEngine.builder().name("waiter-own").contexts(1).build())
        {
            assertThat(new CallerWaiter().onContextThread(engine)).isFalse();
            final CompletableFuture<Boolean> onContext = new CompletableFuture<>();
            engine.contexts().get(0).execute(() -> onContext.complete(new CallerWaiter().onContextThread(engine)));
            assertThat(onContext.get(5, TimeUnit.SECONDS)).isTrue();
        }
    }
}
