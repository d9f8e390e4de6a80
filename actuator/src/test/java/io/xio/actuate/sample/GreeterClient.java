package io.xio.actuate.sample;

import io.xio.annotation.XioClient;

/** The client of {@link Greeter}: its settings are under {@code xio.clients.greeter}. */
@XioClient("greeter")
public interface GreeterClient extends Greeter
{
}
