package io.xio.actuate.sample;

import io.xio.spring.autoconfigure.ImportXioClients;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A server exporting {@link GreeterService}, and a client holding a proxy of {@link Greeter}. */
public final class GreeterApplications
{
    private GreeterApplications()
    {
    }

    @Configuration(proxyBeanMethods = false)
    public static class Server
    {
        @Bean
        GreeterService greeterService()
        {
            return new GreeterService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = GreeterClient.class)
    public static class Client
    {
        @Bean
        Caller caller(final GreeterClient greeter)
        {
            return new Caller(greeter);
        }
    }

    /** Holds the client proxy, the way an application's component would. */
    public static class Caller
    {
        public final Greeter greeter;

        public Caller(final GreeterClient greeter)
        {
            this.greeter = greeter;
        }
    }
}
