package io.xio.spring.autoconfigure.cluster;

import io.xio.spring.autoconfigure.sample.cluster.server.BlobsServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server with a web server on a random port registers in ZooKeeper through Spring Cloud's auto-registration,
 * with no instance port configured: the instance carries the web server's port and xio's portals and host in its
 * metadata (Spring Cloud ZooKeeper builds its instance when it learns the port; xio must not build it before).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XioWebServerRegistrationTest
{
    private TestingServer zookeeper;
    private ConfigurableApplicationContext server;

    @BeforeEach
    void startZookeeper() throws Exception
    {
        zookeeper = new TestingServer(true);
    }

    @AfterEach
    void stop() throws Exception
    {
        if (server != null)
        {
            server.close();
        }
        zookeeper.close();
    }

    @Test
    void aServerWithAWebServerOnARandomPortRegistersWithItsPortAndItsPortals()
    {
        server = new SpringApplicationBuilder(BlobsServerApplication.class).web(WebApplicationType.SERVLET)
            .run("--spring.main.banner-mode=off", "--server.port=0", "--xio.contexts=1", "--xio.idle.busy-poll=0s",
                "--spring.cloud.zookeeper.enabled=true",
                "--spring.cloud.zookeeper.connect-string=" + zookeeper.getConnectString(),
                "--spring.cloud.zookeeper.discovery.instance-host=127.0.0.1", "--spring.application.name=blobs",
                "--test.server-id=a", "--xio.portals[0].uri=tcp://127.0.0.1:0");
        final int webPort = Integer.parseInt(server.getEnvironment().getProperty("local.server.port"));
        assertThat(webPort).isPositive();

        final List<ServiceInstance> instances = server.getBean(DiscoveryClient.class).getInstances("blobs");
        assertThat(instances).singleElement().satisfies(instance ->
        {
            assertThat(instance.getPort()).as("the web server's").isEqualTo(webPort);
            assertThat(instance.getMetadata()).containsEntry(DiscoveryClientEndpointResolver.PORTALS,
                server.getBean(XioServiceExporter.class).portals().get(0).uri().endpoint().toString())
                .containsKey(DiscoveryClientEndpointResolver.HOST);
        });
    }
}
