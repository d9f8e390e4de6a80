package io.xio.actuate.sample;

import io.xio.actuate.autoconfigure.endpoint.XioEndpointAutoConfiguration;
import io.xio.actuate.autoconfigure.health.XioHealthContributorAutoConfiguration;
import io.xio.actuate.autoconfigure.metrics.XioMetricsAutoConfiguration;
import io.xio.actuate.autoconfigure.observation.XioObservationAutoConfiguration;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Application contexts with xio, its actuator auto-configurations and Micrometer's simple registry. */
public final class Runners
{
    private Runners()
    {
    }

    public static ApplicationContextRunner runner()
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
                MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, XioObservationAutoConfiguration.class,
                XioMetricsAutoConfiguration.class, XioHealthContributorAutoConfiguration.class,
                XioEndpointAutoConfiguration.class))
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s");
    }

    public static ApplicationContextRunner server()
    {
        return runner().withUserConfiguration(GreeterApplications.Server.class)
            .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0");
    }

    public static ApplicationContextRunner client(final String uri)
    {
        return runner().withUserConfiguration(GreeterApplications.Client.class)
            .withPropertyValues("xio.clients.greeter.uri=" + uri);
    }

    /** The greeter's address on a running server context. */
    public static String greeterUri(final ApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().withResource("greeter").toString();
    }

    public static Greeter greeter(final ApplicationContext client)
    {
        return client.getBean(GreeterApplications.Caller.class).greeter;
    }
}
