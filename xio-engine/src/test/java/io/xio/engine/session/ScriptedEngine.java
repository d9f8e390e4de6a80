package io.xio.engine.session;

import io.xio.engine.Context;
import io.xio.engine.Limits;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.protocol.FrameType;
import org.agrona.concurrent.CachedNanoClock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One engine with one manual context on a fake clock and the {@link ScriptedWire}: the test thread runs the
 * context, so every step is deterministic and nothing waits for real time.
 */
final class ScriptedEngine implements AutoCloseable
{
    static final long SESSION_ID = 77;

    final CachedNanoClock clock = new CachedNanoClock();
    final ScriptedWire wire = new ScriptedWire(clock);
    final XioEngine engine;
    private final Context context;

    ScriptedEngine()
    {
        this(Limits.DEFAULT);
    }

    ScriptedEngine(final Limits limits)
    {
        clock.update(1_000_000_000L);
        engine = XioEngine.builder().name("scripted").contexts(1).manualContexts(true).nanoClock(clock)
            .leakDetection(true).limits(limits)
            .transport(wire).keepalive(Duration.ofHours(1), Duration.ofHours(2))
            .connectTimeout(Duration.ofSeconds(1)).reconnectTimeout(Duration.ofSeconds(2)).build();
        context = engine.contexts().get(0);
        turn();
    }

    /** Runs the context's duty cycle until it has nothing left to do now. */
    void turn()
    {
        for (int i = 0; i < 100 && context.runOnce(Duration.ZERO) > 0; i++)
        {
            // until idle
        }
    }

    /** Moves the clock on and lets the context run what came due. */
    void advance(final Duration by)
    {
        clock.advance(by.toNanos());
        turn();
    }

    /** Opens a client session to {@code wire://server/kv} and plays the server accepting it. */
    Session openSession()
    {
        return openSession(1024, 4096);
    }

    /** As {@link #openSession()}, the server announcing how many calls it takes in flight and its window. */
    Session openSession(final int peerMaxInFlight, final int peerDedupWindow)
    {
        final CompletableFuture<Session> opening = engine.openSession("wire://server/kv", SessionOptions.DEFAULT);
        turn();
        final ScriptedWire.Link link = wire.last();
        final ScriptedWire.Sent setup = link.sent(FrameType.SETUP).get(0);
        link.deliver(PeerFrames.setupAccept(setup.requestId(), SESSION_ID, peerMaxInFlight, peerDedupWindow));
        turn();
        assertThat(opening).isCompleted();
        return opening.join();
    }

    /** Opens another session to the same server, over the same connection, accepted as {@code sessionId}. */
    Session openSecondSession(final long sessionId)
    {
        final ScriptedWire.Link link = wire.last();
        final int setups = link.sent(FrameType.SETUP).size();
        final CompletableFuture<Session> opening = engine.openSession("wire://server/kv", SessionOptions.DEFAULT);
        turn();
        assertThat(wire.last()).as("sessions to one peer share its connection").isSameAs(link);
        link.deliver(PeerFrames.setupAccept(link.sent(FrameType.SETUP).get(setups).requestId(), sessionId));
        turn();
        return opening.join();
    }

    @Override
    public void close()
    {
        engine.close();
    }
}
