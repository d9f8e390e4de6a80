package io.xio.spring.test.app.client;

import io.xio.annotation.XioClient;
import io.xio.spring.test.app.Greeter;

/** The client of the test service, configured under {@code xio.clients.greeter}. */
@XioClient("greeter")
public interface GreeterClient extends Greeter
{
}
