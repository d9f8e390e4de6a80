package io.xio.benchmarks.overload.server;

import io.xio.annotation.XioService;
import io.xio.benchmarks.overload.api.Probe;

/** Answers at once (on a worker, like most services): the light client's latency shows the server's state. */
@XioService("probe")
public class ProbeService implements Probe
{
    @Override
    public byte[] ping(final byte[] payload)
    {
        return payload;
    }
}
