package io.xio.spring.test.app.server;

import io.xio.annotation.XioService;
import io.xio.spring.test.app.Greeter;

/** The test service, exported as {@code greeter}. */
@XioService
public class GreeterService implements Greeter
{
    @Override
    public String greet(final String name)
    {
        return "hello " + name;
    }
}
