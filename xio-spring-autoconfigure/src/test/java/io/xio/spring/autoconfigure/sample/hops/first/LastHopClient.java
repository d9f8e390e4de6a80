package io.xio.spring.autoconfigure.sample.hops.first;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.hops.api.LastHop;

/** The first hop's client of the last, configured under {@code xio.clients.last}. */
@XioClient("last")
public interface LastHopClient extends LastHop
{
}
