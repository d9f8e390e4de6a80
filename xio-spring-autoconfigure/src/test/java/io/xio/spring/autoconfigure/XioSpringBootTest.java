package io.xio.spring.autoconfigure;

import io.xio.spring.autoconfigure.sample.api.KvStore;
import io.xio.spring.autoconfigure.sample.client.KvClient;
import io.xio.spring.autoconfigure.sample.server.KvStoreImpl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The way an application tests against a real service: the service runs in its own Spring Boot application,
 * this test is a client application injecting its {@code @XioClient} by constructor.
 */
@SpringBootTest(classes = XioSpringBootTest.ClientApp.class, properties = "xio.contexts=1")
class XioSpringBootTest
{
    private static ConfigurableApplicationContext server;

    /** The client application: its package scan finds {@link KvClient}. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @org.springframework.boot.autoconfigure.AutoConfigurationPackage(basePackageClasses = KvClient.class)
    static class ClientApp
    {
    }

    /** The service application, in its own context. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @org.springframework.boot.autoconfigure.AutoConfigurationPackage(basePackageClasses = KvStoreImpl.class)
    static class ServerApp
    {
    }

    @BeforeAll
    static void startServer()
    {
        server = new SpringApplicationBuilder(ServerApp.class)
            .properties("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0", "spring.main.banner-mode=off")
            .run();
    }

    @AfterAll
    static void stopServer()
    {
        server.close();
    }

    @DynamicPropertySource
    static void clientSettings(final DynamicPropertyRegistry registry)
    {
        registry.add("xio.clients.kv.uri", () -> "tcp://127.0.0.1:" +
            server.getEnvironment().getRequiredProperty("local.xio.port") + "/kv");
    }

    private final KvClient kv;

    @Autowired
    XioSpringBootTest(final KvClient kv)
    {
        this.kv = kv;
    }

    @Test
    void constructorInjectedClientCallsTheService()
    {
        kv.put("x", "y");
        assertThat(kv.get("x")).isEqualTo("y");
        assertThat(kv.orders("z")).extracting(KvStore.Order::id).containsExactly("z-1", "z-2");
        assertThat(kv.stock(List.of("abc"))).containsEntry("abc", java.util.Optional.of(3));
        assertThatThrownBy(() -> kv.failWith("bad")).isInstanceOf(IllegalArgumentException.class).hasMessage("bad");
    }
}
