package io.xio.spring.autoconfigure;

import io.xio.engine.XioEngine;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.autoconfigure.cluster.DiscoveryClientEndpointResolver;
import io.xio.spring.autoconfigure.cluster.XioDiscoveryAutoConfiguration;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.autoconfigure.sample.client.ClientApplication;
import io.xio.spring.autoconfigure.sample.client.KvClient;
import io.xio.spring.autoconfigure.health.XioHealthAutoConfiguration;
import io.xio.spring.autoconfigure.reflection.XioReflectionAutoConfiguration;
import io.xio.spring.health.XioHealthService;
import io.xio.spring.reflection.XioReflectionService;
import io.xio.spring.autoconfigure.security.XioSecurityAutoConfiguration;
import io.xio.spring.security.XioSecurityContextInterceptor;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * {@code xio.enabled=false} turns off every xio auto-configuration, also where an application's own engine would
 * satisfy its other conditions; left out, each is on.
 */
class XioEnabledTest
{
    private static final String OFF = "xio.enabled=false";

    @Test
    void theCoreAutoConfigurationMakesNoEngineExporterOrClients()
    {
        final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class))
            .withUserConfiguration(ClientApplication.class)
            .withPropertyValues("xio.contexts=1");
        runner.withPropertyValues("xio.clients.kv.uri=tcp://127.0.0.1:1/kv").run(context ->
            assertThat(context).hasNotFailed().hasSingleBean(XioEngine.class).hasSingleBean(XioCodec.class)
                .hasSingleBean(XioServiceExporter.class)
                .hasSingleBean(XioClientRegistry.class).hasSingleBean(KvClient.class));
        // No client bean definitions either: an @XioClient without its settings does not fail start-up.
        runner.withPropertyValues(OFF).run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(XioEngine.class).doesNotHaveBean(XioCodec.class)
            .doesNotHaveBean(XioServiceExporter.class).doesNotHaveBean(XioClientRegistry.class)
            .doesNotHaveBean(KvClient.class));
    }

    @Test
    void theSecurityAutoConfigurationBacksOff()
    {
        final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(XioSecurityAutoConfiguration.class));
        runner.run(context -> assertThat(context).hasSingleBean(XioSecurityContextInterceptor.class));
        runner.withPropertyValues(OFF).run(context ->
            assertThat(context).hasNotFailed().doesNotHaveBean(XioSecurityContextInterceptor.class));
    }

    @Test
    void theDiscoveryAutoConfigurationBacksOffEvenWithAnEngineAndADiscoveryClient()
    {
        final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(XioDiscoveryAutoConfiguration.class))
            .withBean(XioEngine.class, () -> XioEngine.builder().contexts(1).busyPoll(Duration.ZERO).build())
            .withBean(XioProperties.class).withBean(DiscoveryClient.class, NoInstances::new);
        runner.run(context -> assertThat(context).hasSingleBean(DiscoveryClientEndpointResolver.class));
        runner.withPropertyValues(OFF).run(context ->
            assertThat(context).hasNotFailed().doesNotHaveBean(DiscoveryClientEndpointResolver.class));
    }

    @Test
    void theReflectionAutoConfigurationBacksOffEvenWithAnExporter()
    {
        final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(XioReflectionAutoConfiguration.class))
            .withBean(XioServiceExporter.class, () -> mock(XioServiceExporter.class));
        runner.run(context -> assertThat(context).hasSingleBean(XioReflectionService.class));
        runner.withPropertyValues(OFF).run(context ->
            assertThat(context).hasNotFailed().doesNotHaveBean(XioReflectionService.class));
    }

    @Test
    void theHealthAutoConfigurationBacksOffEvenWithAnExporter()
    {
        final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(XioHealthAutoConfiguration.class))
            .withBean(XioServiceExporter.class, () -> mock(XioServiceExporter.class));
        runner.run(context -> assertThat(context).hasSingleBean(XioHealthService.class));
        runner.withPropertyValues(OFF).run(context ->
            assertThat(context).hasNotFailed().doesNotHaveBean(XioHealthService.class));
    }

    /** A discovery client that knows no services. */
    static final class NoInstances implements DiscoveryClient
    {
        @Override
        public String description()
        {
            return "none";
        }

        @Override
        public List<ServiceInstance> getInstances(final String serviceId)
        {
            return List.of();
        }

        @Override
        public List<String> getServices()
        {
            return List.of();
        }
    }
}
