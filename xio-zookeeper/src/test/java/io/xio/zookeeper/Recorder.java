package io.xio.zookeeper;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointResolver;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** A listener that keeps every report, the threads they came on and whether two ever overlapped. */
final class Recorder implements EndpointResolver.Listener
{
    final List<List<Endpoint>> sets = new CopyOnWriteArrayList<>();
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    /** Sets and errors in the order they came. */
    final List<Object> events = new CopyOnWriteArrayList<>();
    final Set<String> threads = ConcurrentHashMap.newKeySet();
    final AtomicBoolean overlapped = new AtomicBoolean();
    private final AtomicInteger inside = new AtomicInteger();

    @Override
    public void onEndpoints(final List<Endpoint> endpoints)
    {
        enter();
        sets.add(endpoints);
        events.add(endpoints);
        leave();
    }

    @Override
    public void onError(final Throwable cause)
    {
        enter();
        errors.add(cause);
        events.add(cause);
        leave();
    }

    /** The ids of the last set reported; null before the first. */
    List<String> ids()
    {
        return sets.isEmpty() ? null : sets.get(sets.size() - 1).stream().map(Endpoint::id).toList();
    }

    private void enter()
    {
        threads.add(Thread.currentThread().getName());
        if (inside.incrementAndGet() > 1)
        {
            overlapped.set(true);
        }
        Thread.yield();
    }

    private void leave()
    {
        inside.decrementAndGet();
    }
}
