package io.xio.engine.transport;

import io.xio.engine.Limits;
import io.xio.engine.PeerRefusal;
import io.xio.engine.memory.BufferPool;

import java.nio.channels.Selector;

/**
 * What a context offers the transports it runs: its pool, its selector, a place in its duty cycle and its
 * command queue. Methods other than {@link #execute}, {@link #wakeup} and {@link #name} are for the context
 * thread only.
 */
public interface TransportContext
{
    String name();

    BufferPool pool();

    Limits limits();

    /** The context's NIO selector; attach a {@link SelectionHandler} to keys registered with it. */
    Selector selector();

    /**
     * Counts links that need the selector every turn (a socket waiting for room to write): while there are none,
     * and few socket readers, a busy loop looks at its selector only every few turns, so ring-fed links (shm) run
     * without a system call per turn and a socket costs one read per turn.
     */
    void selectorLinks(int delta);

    /**
     * Adds a socket link whose key is registered for reads. While the context has at most a few, a busy loop
     * reads each directly every turn instead of selecting first, as Aeron's transport poller iterates its few
     * channels: one read costs what a non-blocking select does, and the selector's own bookkeeping is saved on
     * every message. With more it selects every turn and the keys' handlers read. A parked loop waits in the
     * selector either way.
     */
    void addSocketReader(SocketReader reader);

    /** Stops reading {@code reader} directly: its link is closing. */
    void removeSocketReader(SocketReader reader);

    /** Adds a poller run every duty cycle until it is removed. */
    void addPoller(Poller poller);

    void removePoller(Poller poller);

    /** Schedules a flush of the link at the end of this loop turn. */
    void flushLater(TransportLink link);

    /** Runs the task on the context thread; callable from any thread. */
    void execute(Runnable task);

    /** Wakes the context thread if it is parked; callable from any thread, cheap when it is not. */
    void wakeup();

    /** Schedules {@code task} on the context thread at {@code deadlineNanos}, a time of {@link #nanoTime}'s clock. */
    long schedule(long deadlineNanos, Runnable task);

    void cancelTimer(long timerId);

    /** The time of the current loop turn on the engine's clock ({@code System.nanoTime} unless a test set another). */
    long nanoTime();

    /** The context's counters, for the transport to count frames and writes. */
    LoopCounters counters();

    /**
     * A peer the transport refused before it became a link (shm: a local user the portal does not admit): counted
     * in the engine's {@code refusals()} and logged at most once a second per peer host, as the engine's own
     * refusals are. Context thread.
     */
    default void refused(final PeerRefusal kind, final String remoteAddress, final String detail)
    {
        org.slf4j.LoggerFactory.getLogger(TransportContext.class).warn("refused {} {}: {}", kind, remoteAddress,
            detail);
    }

    /** Where a context's transports' refusals go: the engine's count of them. */
    @FunctionalInterface
    interface RefusalSink
    {
        void refused(PeerRefusal kind, String remoteAddress, String detail);
    }
}
