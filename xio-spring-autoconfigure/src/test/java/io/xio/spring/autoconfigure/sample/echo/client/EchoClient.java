package io.xio.spring.autoconfigure.sample.echo.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.echo.api.Echo;

/** The client side of {@link Echo}, configured under {@code xio.clients.echo}. */
@XioClient("echo")
public interface EchoClient extends Echo
{
}
