package io.xio.cluster;

import io.xio.engine.support.Rendezvous;

import java.util.concurrent.atomic.AtomicInteger;

/** The built-in {@link LoadBalancer}s. */
final class Balancers
{
    private Balancers()
    {
    }

    static LoadBalancer roundRobin()
    {
        final AtomicInteger next = new AtomicInteger();
        return (candidates, key) -> Math.floorMod(next.getAndIncrement(), candidates.size());
    }

    static LoadBalancer leastInFlight()
    {
        final AtomicInteger next = new AtomicInteger();
        return (candidates, key) ->
        {
            final int size = candidates.size();
            final int start = Math.floorMod(next.getAndIncrement(), size); // ties go round
            int best = start;
            int fewest = Integer.MAX_VALUE;
            for (int i = 0; i < size; i++)
            {
                final int index = (start + i) % size;
                final int load = candidates.get(index).inFlight();
                if (load < fewest)
                {
                    fewest = load;
                    best = index;
                }
            }
            return best;
        };
    }

    static LoadBalancer rendezvous()
    {
        final LoadBalancer unkeyed = roundRobin();
        return (candidates, key) ->
        {
            if (key == 0)
            {
                return unkeyed.pick(candidates, key);
            }
            int best = 0;
            long highest = Long.MIN_VALUE;
            for (int i = 0; i < candidates.size(); i++)
            {
                final long score = Rendezvous.score(Rendezvous.hash(candidates.get(i).endpoint().id()), key);
                if (score > highest)
                {
                    highest = score;
                    best = i;
                }
            }
            return best;
        };
    }
}
