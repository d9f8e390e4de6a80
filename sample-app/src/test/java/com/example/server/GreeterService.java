package com.example.server;

import com.example.api.Greeter;
import io.xio.annotation.XioService;

/** The README's getting-started service, exported as resource {@code greeter}. */
@XioService("greeter")
class GreeterService implements Greeter
{
    @Override
    public String greet(final String name)
    {
        return "Hello, " + name;
    }
}
