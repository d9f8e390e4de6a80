package io.xio.spring.autoconfigure.sample.retry.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.retry.Flaky;

/** The client side of {@link Flaky}, configured under {@code xio.clients.flaky}. */
@XioClient("flaky")
public interface FlakyClient extends Flaky
{
}
