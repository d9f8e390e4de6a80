package io.xio.cluster;

import io.xio.engine.Session;

import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Picks the session a call goes on: from the members able to take calls, as the client's membership last published
 * them, with its {@link LoadBalancer}; and keeps the callers waiting for one until a publication has it. Any thread
 * picks, without locking or allocating; {@link #publish} runs under the client's lock, and wakes waiters on the
 * client's thread, never on the thread that published (it holds the lock, and may be a context thread the woken
 * call must not wait on).
 */
final class Picker
{
    private static final int MAX_PICKS = 8;

    private final LoadBalancer balancer;
    private final ClientThread thread;
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    private volatile List<Member> active = List.of();

    /** A caller waiting for a session, and its routing key. */
    private record Waiter(CompletableFuture<Session> future, long key)
    {
    }

    Picker(final LoadBalancer balancer, final ClientThread thread)
    {
        this.balancer = balancer;
        this.thread = thread;
    }

    /** The session the balancer picks for {@code key}, or null when none can take a call now. Any thread. */
    Session pick(final long key)
    {
        for (int tries = 0; tries < MAX_PICKS; tries++)
        {
            final List<Member> ready = active;
            if (ready.isEmpty())
            {
                return null;
            }
            final Session session = ready.get(ready.size() == 1 ? 0 : balancer.pick(ready, key)).session;
            // A connection may have dropped since the list was published (its event comes just after): with others
            // to choose, pass it over; the event republishes, and a caller left waiting is woken then.
            if (session != null && session.isOpen() && !session.isDraining() &&
                (session.connectionCount() > 0 || ready.size() == 1))
            {
                return session;
            }
        }
        return null;
    }

    /**
     * A future the next publication able to serve {@code key} completes, on the client's thread. The caller
     * republishes after, since a member may have come up between its pick and this. Any thread.
     */
    CompletableFuture<Session> await(final long key)
    {
        final Waiter waiter = new Waiter(new CompletableFuture<>(), key);
        waiters.removeIf(w -> w.future.isDone()); // callers that gave up
        waiters.add(waiter);
        return waiter.future;
    }

    /** Stops waiting on {@code waiting}, which fails with {@code failure}. Any thread. */
    void withdraw(final CompletableFuture<Session> waiting, final Throwable failure)
    {
        waiters.removeIf(w -> w.future == waiting);
        waiting.completeExceptionally(failure);
    }

    /** Fails every caller waiting, with {@code failure}. Any thread. */
    void failWaiters(final Throwable failure)
    {
        Waiter waiter;
        while ((waiter = waiters.poll()) != null)
        {
            waiter.future.completeExceptionally(failure);
        }
    }

    /**
     * Makes {@code chosen} (in a stable order, for round robin) the members calls go to, and hands each waiter its
     * pick on the client's thread while there is one. Under the client's lock.
     */
    void publish(final List<Member> chosen)
    {
        active = List.copyOf(chosen);
        if (chosen.isEmpty())
        {
            return; // the next change wakes the waiters
        }
        for (final Iterator<Waiter> it = waiters.iterator(); it.hasNext(); )
        {
            final Waiter waiter = it.next();
            it.remove();
            final Session session = pick(waiter.key);
            if (session != null)
            {
                thread.execute(() -> waiter.future.complete(session)); // no effect when its caller gave up
            }
            else
            {
                waiters.add(waiter);
                return;
            }
        }
    }

    /** Whether more than one member can take calls now. Any thread. */
    boolean hasAlternatives()
    {
        return active.size() > 1;
    }

    /** How many members can take calls now. Any thread. */
    int activeCount()
    {
        return active.size();
    }
}
