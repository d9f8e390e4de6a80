package io.xio.spring.client;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/** A runtime class that reads its settings with Spring Boot, as the architecture rule forbids: the rule's own test. */
public final class DeliberateBootUse
{
    private DeliberateBootUse()
    {
    }

    static String uri(final Environment environment, final String name)
    {
        return Binder.get(environment).bind("xio.clients." + name + ".uri", String.class).orElse(null);
    }
}
