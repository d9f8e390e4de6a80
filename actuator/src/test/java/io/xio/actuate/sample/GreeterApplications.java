package io.xio.actuate.sample;

import io.xio.annotation.XioClient;
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
    public static class Client
    {
        @Bean
        Caller caller()
        {
            return new Caller();
        }
    }

    /** Holds the client proxy, the way an application's component would. */
    public static class Caller
    {
        @XioClient("greeter")
        public Greeter greeter;
    }
}
