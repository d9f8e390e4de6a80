package io.xio.rdma.verbs;

import io.xio.engine.Limits;
import io.xio.engine.memory.BufferPool;
import io.xio.engine.transport.LoopCounters;
import io.xio.engine.transport.Poller;
import io.xio.engine.transport.SocketReader;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;

import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;

/** A context without a loop: the test thread is its thread, and runs the flushes a loop turn would end with. */
final class TestContext implements TransportContext
{
    private final String name;
    private final BufferPool pool;
    private final LoopCounters counters = new LoopCounters();
    private final List<TransportLink> flushes = new ArrayList<>();

    TestContext(final String name)
    {
        this.name = name;
        this.pool = new BufferPool(name);
    }

    /** Flushes the links that asked for it; returns how many did. */
    int runFlushes()
    {
        final List<TransportLink> due = new ArrayList<>(flushes);
        flushes.clear();
        due.forEach(TransportLink::flush);
        return due.size();
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public BufferPool pool()
    {
        return pool;
    }

    @Override
    public Limits limits()
    {
        return Limits.DEFAULT;
    }

    @Override
    public Selector selector()
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public void selectorLinks(final int delta)
    {
    }

    @Override
    public void addPoller(final Poller poller)
    {
    }

    @Override
    public void removePoller(final Poller poller)
    {
    }

    @Override
    public void addSocketReader(final SocketReader reader)
    {
    }

    @Override
    public void removeSocketReader(final SocketReader reader)
    {
    }

    @Override
    public void flushLater(final TransportLink link)
    {
        flushes.add(link);
    }

    @Override
    public void execute(final Runnable task)
    {
        task.run();
    }

    @Override
    public void wakeup()
    {
    }

    @Override
    public long schedule(final long deadlineNanos, final Runnable task)
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public void cancelTimer(final long timerId)
    {
    }

    @Override
    public long nanoTime()
    {
        return System.nanoTime();
    }

    @Override
    public LoopCounters counters()
    {
        return counters;
    }
}
