package io.xio.spring.autoconfigure.sample.hops.caller;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.hops.api.FirstHop;

/** The caller's client of the first hop, configured under {@code xio.clients.first}. */
@XioClient("first")
public interface FirstHopClient extends FirstHop
{
}
