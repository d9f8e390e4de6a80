package io.xio.benchmarks.compare.peers;

import io.xio.benchmarks.compare.CallLoop;
import io.xio.benchmarks.compare.Measurement;
import io.xio.benchmarks.compare.Peer;
import io.xio.benchmarks.compare.Workload;

import java.nio.ByteBuffer;

/**
 * The memory-bandwidth reference for large transfers: one thread copying the workload's request size from one
 * direct buffer into another with {@link ByteBuffer#put(ByteBuffer)} (the JVM's intrinsic copy), back to back
 * through the measured window; each copy is one "call", so MiB/s is the single-thread copy bandwidth measured in
 * the same run as the transfers. The server half does nothing (the harness starts one for every case). Both
 * buffers stay the same, so for sizes that fit a cache this is cache bandwidth, as it is for a ring of that size.
 */
public final class MemoryCopyPeer implements Peer
{
    @Override
    public Server serve(final String variant, final Workload workload)
    {
        return new Server()
        {
            @Override
            public String address()
            {
                return "none";
            }

            @Override
            public void close()
            {
            }
        };
    }

    @Override
    public Measurement run(final String variant, final String address, final Workload workload) throws Exception
    {
        final ByteBuffer from = ByteBuffer.allocateDirect(workload.requestBytes());
        final ByteBuffer to = ByteBuffer.allocateDirect(workload.requestBytes());
        for (int i = 0; i < from.capacity(); i++)
        {
            from.put(i, (byte)i);
        }
        // a copy into off-heap memory is a side effect the JIT compiler keeps
        return CallLoop.blocking(workload, () ->
        {
            from.clear();
            to.clear();
            to.put(from);
        }, () -> Double.NaN);
    }
}
