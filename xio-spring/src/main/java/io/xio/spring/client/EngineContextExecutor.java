package io.xio.spring.client;

import io.xio.engine.Context;
import io.xio.engine.XioEngine;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where an asynchronous call's next attempt starts once its backoff is over: on one of the engine's contexts, as the
 * call's completions do, rather than on the common pool, CompletableFuture's default (on Java 25, or with more than
 * two CPUs), which the application may keep busy while the call's deadline runs out. An attempt does not wait there:
 * it opens its session asynchronously and does not wait for room in the window. On the calling thread (the JDK's
 * delay scheduler) when no context is running, so that the attempt still ends, failing as calls on a closed engine
 * do. Like any thread handing a context a task, the scheduler waits for room when that context's queue of 65536
 * tasks is full. Immutable; any thread.
 */
final class EngineContextExecutor implements Executor
{
    private final XioEngine engine;

    EngineContextExecutor(final XioEngine engine)
    {
        this.engine = engine;
    }

    @Override
    public void execute(final Runnable attempt)
    {
        final List<Context> contexts = engine.contexts();
        final int from = contexts.isEmpty() ? 0 : ThreadLocalRandom.current().nextInt(contexts.size());
        for (int i = 0; i < contexts.size(); i++)
        {
            final Context context = contexts.get((from + i) % contexts.size());
            if (context.isRunning())
            {
                try
                {
                    context.execute(attempt);
                    return;
                }
                catch (final RuntimeException closed)
                {
                    // it closed meanwhile: try the next
                }
            }
        }
        attempt.run();
    }
}
