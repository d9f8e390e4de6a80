package io.xio.benchmarks.compare;

import java.lang.management.ManagementFactory;

/** Bytes allocated by the live threads of this JVM, from HotSpot's per-thread counters; -1 if unsupported. */
final class Allocations
{
    private Allocations()
    {
    }

    static long total()
    {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads) ||
            !threads.isThreadAllocatedMemorySupported())
        {
            return -1;
        }
        long sum = 0;
        for (final long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds()))
        {
            if (bytes > 0)
            {
                sum += bytes;
            }
        }
        return sum;
    }
}
