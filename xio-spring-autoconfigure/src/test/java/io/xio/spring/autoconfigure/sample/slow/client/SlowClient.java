package io.xio.spring.autoconfigure.sample.slow.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.slow.Slow;

/** The client side of {@link Slow}, configured under {@code xio.clients.slow}. */
@XioClient("slow")
public interface SlowClient extends Slow
{
}
