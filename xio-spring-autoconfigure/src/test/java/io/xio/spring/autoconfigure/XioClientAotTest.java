package io.xio.spring.autoconfigure;

import io.xio.spring.autoconfigure.client.XioClientConfigurationException;
import io.xio.spring.autoconfigure.sample.orders.api.OrderServiceClient;
import io.xio.spring.autoconfigure.sample.orders.app.OrdersClientApplication;
import io.xio.spring.autoconfigure.sample.orders.server.OrdersServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * AOT processing of a client application whose client address is not in the environment at build time, as
 * {@code spring-boot:process-aot} runs it: the generated context then starts with the address given at run time
 * and calls through the client.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@CompileWithForkedClassLoader // the generated code reaches this test's package-private configuration
class XioClientAotTest
{
    @Test
    void aClientProcessedAheadOfTimeWithoutItsAddressStartsWithTheAddressGivenAtRunTime()
    {
        final TestGenerationContext generation = new TestGenerationContext();
        final ClassName initializerName = processedAheadOfTime(generation);
        runner(OrdersServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0").run(server ->
        {
            final String uri = server.getBean(XioServiceExporter.class).portals().get(0).uri().withResource("orders")
                .toString();
            TestCompiler.forSystem().with(generation).compile(compiled ->
            {
                try (GenericApplicationContext started = initialized(compiled, initializerName,
                    Map.of("xio.clients.order-service.uri", uri, "xio.contexts", "1", "xio.idle.busy-poll", "0s")))
                {
                    started.refresh();
                    assertThat(started.getBean(OrderServiceClient.class).place("book")).isEqualTo("placed book");
                }
            });
        });
    }

    @Test
    void aClientWithoutAnAddressStillFailsStartUpOnTheGeneratedContext()
    {
        final TestGenerationContext generation = new TestGenerationContext();
        final ClassName initializerName = processedAheadOfTime(generation);
        TestCompiler.forSystem().with(generation).compile(compiled ->
        {
            try (GenericApplicationContext started = initialized(compiled, initializerName,
                Map.of("xio.contexts", "1", "xio.idle.busy-poll", "0s")))
            {
                assertThatThrownBy(started::refresh).rootCause().isInstanceOf(XioClientConfigurationException.class)
                    .hasMessageContaining("xio.clients.order-service.uri is not set");
            }
        });
    }

    /** Processes {@link ClientConfiguration} ahead of time into {@code generation}; the initializer's name. */
    private static ClassName processedAheadOfTime(final TestGenerationContext generation)
    {
        final ClassName initializerName;
        try (GenericApplicationContext processed = new AnnotationConfigApplicationContext())
        {
            processed.registerBean(ClientConfiguration.class);
            initializerName = new ApplicationContextAotGenerator().processAheadOfTime(processed, generation);
        }
        generation.writeGeneratedContent();
        return initializerName;
    }

    /** A context initialized by the generated code, with {@code properties} given at run time, not refreshed. */
    private static GenericApplicationContext initialized(final org.springframework.core.test.tools.Compiled compiled,
        final ClassName initializerName, final Map<String, Object> properties)
    {
        final GenericApplicationContext started = new GenericApplicationContext();
        started.getEnvironment().getPropertySources().addFirst(new MapPropertySource("run-time", properties));
        @SuppressWarnings("unchecked")
        final ApplicationContextInitializer<GenericApplicationContext> initializer =
            compiled.getInstance(ApplicationContextInitializer.class, initializerName.toString());
        initializer.initialize(started);
        return started;
    }

    /** The application as Boot's AOT processing sees it: its own configuration and the auto-configurations. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({JacksonAutoConfiguration.class, XioAutoConfiguration.class})
    @Import(OrdersClientApplication.class)
    static class ClientConfiguration
    {
    }
}
