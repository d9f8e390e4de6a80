package com.example.client;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/** The README's getting-started caller: the client injected by constructor, one call when the application runs. */
@Component
class Hello implements ApplicationRunner
{
    private final GreeterClient greeter;

    Hello(final GreeterClient greeter)
    {
        this.greeter = greeter;
    }

    @Override
    public void run(final ApplicationArguments args)
    {
        System.out.println(greeter.greet("xio"));
    }
}
