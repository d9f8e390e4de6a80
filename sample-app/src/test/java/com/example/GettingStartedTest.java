package com.example;

import com.example.api.Greeter;
import com.example.client.GreeterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's "Getting started" as written: its application.yml (getting-started.yml, on a free port here), its
 * interface, service, client and runner, in a package of their own outside the sample's. Apart from that port and
 * the sample's ZooKeeper discovery switched off, nothing is configured that the README does not show.
 */
@SpringBootTest(classes = GettingStartedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
    properties = {"spring.config.name=getting-started", "spring.cloud.zookeeper.enabled=false"})
@ExtendWith(OutputCaptureExtension.class)
class GettingStartedTest
{
    private static final int PORT = freePort();

    @DynamicPropertySource
    static void port(final DynamicPropertyRegistry registry)
    {
        registry.add("xio.portals[0].uri", () -> "tcp://127.0.0.1:" + PORT);
        registry.add("xio.clients.greeter.uri", () -> "tcp://127.0.0.1:" + PORT + "/greeter");
    }

    @Autowired
    private GreeterClient greeter;

    @Autowired
    private ApplicationContext context;

    @Test
    void theRunnerPrintsTheGreetingItGotOverXio(final CapturedOutput output)
    {
        // The context starts after the extension began capturing (Spring's extension loads it per test instance).
        assertThat(output.getOut()).contains("Hello, xio");
    }

    @Test
    void theClientIsAProxyBesideTheService()
    {
        assertThat(greeter.greet("newcomer")).isEqualTo("Hello, newcomer");
        assertThat(Proxy.isProxyClass(greeter.getClass())).as("a client proxy, not the service").isTrue();
        assertThat(context.getBeansOfType(Greeter.class)).hasSize(2);
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
