package io.xio.spring.autoconfigure.cluster;

import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.sample.cluster.client.BlobsClient;
import io.xio.spring.autoconfigure.sample.cluster.server.BlobsService;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Spring client configured with a DNS name ({@code xio.clients.blobs.uri: dns:///name:port/blobs}) that resolves,
 * through the JDK, to two loopback addresses with a server each on one port: it calls both, and follows the name
 * when it loses one. The surefire execution {@code hosts-file} runs it with a hosts file the test rewrites and no
 * DNS cache.
 */
@Tag("hosts-file")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class XioDnsClientTest
{
    private static final String NAME = "blobs.xio-dns.test";

    private Path hosts;

    /** A blobs server. */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage(basePackageClasses = BlobsService.class)
    static class Server
    {
    }

    /** A blobs client. */
    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage(basePackageClasses = BlobsClient.class)
    static class Client
    {
    }

    @BeforeEach
    void hostsFile() throws IOException
    {
        final String file = System.getProperty("jdk.net.hosts.file");
        assertThat(file).as("run in the hosts-file execution, which names the file").isNotNull();
        hosts = Path.of(file);
        Files.createDirectories(hosts.getParent());
        names();
    }

    @AfterEach
    void forget() throws IOException
    {
        names();
    }

    /** {@link #NAME} at {@code addresses}, written atomically. */
    private void names(final String... addresses) throws IOException
    {
        final StringBuilder text = new StringBuilder("127.0.0.1 localhost\n");
        for (final String address : addresses)
        {
            text.append(address).append(' ').append(NAME).append('\n');
        }
        final Path next = hosts.resolveSibling("hosts.next");
        Files.writeString(next, text);
        Files.move(next, hosts, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static ApplicationContextRunner server(final String id, final String portal)
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class))
            .withUserConfiguration(Server.class)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s", "xio.portals[0].uri=" + portal,
                "test.server-id=" + id);
    }

    @Test
    void aClientConfiguredWithADnsNameCallsEveryAddressAndFollowsTheName()
    {
        server("a", "tcp://127.0.0.2:0").run(a ->
        {
            final int port = a.getBean(XioServiceExporter.class).portals().get(0).uri().port();
            server("b", "tcp://127.0.0.3:" + port).run(b ->
            {
                names("127.0.0.2", "127.0.0.3");
                new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                        XioAutoConfiguration.class))
                    .withUserConfiguration(Client.class)
                    .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s",
                        "xio.clients.blobs.uri=dns:///" + NAME + ":" + port + "/blobs",
                        "xio.client.dns.refresh-interval=200ms", "xio.client.dns.min-refresh-interval=100ms")
                    .run(client ->
                    {
                        assertThat(client).hasNotFailed();
                        final XioClientRegistry registry = client.getBean(XioClientRegistry.class);
                        await().atMost(Duration.ofSeconds(20))
                            .until(() -> registry.statuses().get(0).activeEndpoints() == 2);
                        final BlobsClient blobs = client.getBean(BlobsClient.class);
                        final Map<String, Integer> answered = new HashMap<>();
                        for (int i = 0; i < 20; i++)
                        {
                            answered.merge(blobs.write("k" + i), 1, Integer::sum);
                        }
                        assertThat(answered).containsOnly(Map.entry("a", 10), Map.entry("b", 10));

                        names("127.0.0.3"); // a's pod left the service
                        await().atMost(Duration.ofSeconds(20))
                            .until(() -> registry.statuses().get(0).activeEndpoints() == 1);
                        final Map<String, Integer> after = new HashMap<>();
                        for (int i = 0; i < 10; i++)
                        {
                            after.merge(blobs.write("m" + i), 1, Integer::sum);
                        }
                        assertThat(after).containsOnly(Map.entry("b", 10));
                    });
                await("the context stopped its DNS resolver").atMost(Duration.ofSeconds(10))
                    .until(() -> XioClientsWithoutXioMetadataTest.dnsThreads() == 0);
            });
        });
    }
}
