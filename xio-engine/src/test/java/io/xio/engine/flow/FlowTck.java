package io.xio.engine.flow;

import io.xio.engine.TestEngines;
import org.reactivestreams.tck.TestEnvironment;

import java.time.Duration;

/** What the Reactive Streams TCK classes of the Flow view share: their timing. */
final class FlowTck
{
    private FlowTck()
    {
    }

    /**
     * The TCK's waits: 2 s for a signal that is due (a stream opens and turns its credit over on real engines, on two
     * shared cores), 100 ms of quiet where none may come, polled every 10 ms.
     */
    static TestEnvironment environment()
    {
        return new TestEnvironment(TestEngines.scaled(Duration.ofSeconds(2)).toMillis(),
            TestEngines.scaled(Duration.ofMillis(100)).toMillis(), 10);
    }
}
