package io.xio.spring.autoconfigure.cluster;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointResolver;
import io.xio.engine.XioUri;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DiscoveryClientEndpointResolver} over a discovery client the test controls: which instances become
 * endpoints and how, that a heartbeat or the timer reads them again, that only a changed set is reported, and that
 * a failing discovery client is reported while the last set stands.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DiscoveryClientEndpointResolverTest
{
    /** Instances as the test sets them; throws while {@link #failure} is set. */
    private static final class FakeDiscovery implements DiscoveryClient
    {
        final AtomicReference<List<ServiceInstance>> instances = new AtomicReference<>(List.of());
        final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public String description()
        {
            return "fake";
        }

        @Override
        public List<ServiceInstance> getInstances(final String serviceId)
        {
            reads.incrementAndGet();
            final RuntimeException thrown = failure.get();
            if (thrown != null)
            {
                throw thrown;
            }
            return instances.get().stream().filter(i -> i.getServiceId().equals(serviceId)).toList();
        }

        @Override
        public List<String> getServices()
        {
            return List.of("blobs");
        }
    }

    /** What a watcher heard, in order. */
    private static final class Heard implements EndpointResolver.Listener
    {
        final BlockingQueue<List<Endpoint>> sets = new LinkedBlockingQueue<>();
        final BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();

        @Override
        public void onEndpoints(final List<Endpoint> endpoints)
        {
            sets.add(endpoints);
        }

        @Override
        public void onError(final Throwable cause)
        {
            errors.add(cause);
        }
    }

    private final FakeDiscovery discovery = new FakeDiscovery();
    private DiscoveryClientEndpointResolver resolver;

    @AfterEach
    void close()
    {
        if (resolver != null)
        {
            resolver.close();
        }
    }

    private static ServiceInstance instance(final String id, final Map<String, String> metadata)
    {
        return new DefaultServiceInstance(id, "blobs", "10.0.0.1", 8080, false, metadata);
    }

    @Test
    void instancesWithPortalsBecomeEndpointsAndOthersAreSkipped() throws Exception
    {
        discovery.instances.set(List.of(
            instance("b-1", Map.of("xio.portals", "tcp://10.0.0.2:7000, shm://blobs-b", "xio.host", "host-b",
                "zone", "eu-1")),
            instance("web-only", Map.of("zone", "eu-1")), // a web instance of the service: no xio portals
            instance("a-1", Map.of("xio.portals", "tcp://10.0.0.1:7000/ignored", "xio.host", "host-a")),
            instance("broken", Map.of("xio.portals", "not a uri", "xio.host", "host-c"))));
        resolver = new DiscoveryClientEndpointResolver(discovery, Duration.ofHours(1));
        final Heard heard = new Heard();
        resolver.watch("blobs", heard);

        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).containsExactly(
            new Endpoint("a-1", "host-a", List.of(XioUri.parse("tcp://10.0.0.1:7000")), Map.of()),
            new Endpoint("b-1", "host-b", List.of(XioUri.parse("tcp://10.0.0.2:7000"),
                XioUri.parse("shm://blobs-b")), Map.of("zone", "eu-1")));
    }

    /** Instances of a service none of which announces portals, as Spring Cloud Kubernetes and others list them. */
    private static List<ServiceInstance> unannounced()
    {
        return List.of(
            // Spring Cloud Kubernetes: the service's named ports in every instance's metadata, its primary port
            // (http, say) as the instance's own.
            new DefaultServiceInstance("pod-a", "blobs", "10.1.0.5", 8080, false,
                Map.of("port.http", "8080", "port.xio", "7000", "k8s_namespace", "prod")),
            new DefaultServiceInstance("pod-b", "blobs", "10.1.0.6", 8443, true,
                Map.of("port.xio-tls", "7443", "port.xio", "7000")),
            // No named port: its own port, which may well be its web port.
            new DefaultServiceInstance("plain", "blobs", "10.1.0.7", 7000, false, Map.of()),
            new DefaultServiceInstance("secure", "blobs", "fd00::8", 7443, true, Map.of()),
            new DefaultServiceInstance("bad-port", "blobs", "10.1.0.9", 8080, false, Map.of("port.xio", "x")));
    }

    private static final Endpoint POD_A = new Endpoint("pod-a", "", List.of(XioUri.parse("tcp://10.1.0.5:7000")),
        Map.of("port.http", "8080", "port.xio", "7000", "k8s_namespace", "prod"));
    private static final Endpoint POD_B = new Endpoint("pod-b", "",
        List.of(XioUri.parse("tls://10.1.0.6:7443"), XioUri.parse("tcp://10.1.0.6:7000")),
        Map.of("port.xio-tls", "7443", "port.xio", "7000"));

    @Test
    void withoutAnnouncedPortalsInstancesAreReachedAtTheirPortsNamedXioAndNeverAtTheirOwnPortByDefault()
        throws Exception
    {
        discovery.instances.set(unannounced());
        resolver = new DiscoveryClientEndpointResolver(discovery, Duration.ofHours(1));
        final Heard heard = new Heard();
        resolver.watch("blobs", heard);

        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).containsExactly(POD_A, POD_B);
    }

    @Test
    void anInstancesOwnPortIsTakenOnlyWhenTheApplicationOptsIn() throws Exception
    {
        discovery.instances.set(unannounced());
        resolver = new DiscoveryClientEndpointResolver(discovery, Duration.ofHours(1), true);
        final Heard heard = new Heard();
        resolver.watch("blobs", heard);

        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).containsExactly(
            new Endpoint("plain", "", List.of(XioUri.parse("tcp://10.1.0.7:7000")), Map.of()), POD_A, POD_B,
            new Endpoint("secure", "", List.of(XioUri.parse("tls://[fd00::8]:7443")), Map.of()));
    }

    @Test
    void onceOneInstanceAnnouncesPortalsThoseWithoutAreSkippedNamedPortsOrNot() throws Exception
    {
        discovery.instances.set(List.of(
            instance("announced", Map.of("xio.portals", "tcp://10.0.0.1:7000", "xio.host", "host-a")),
            new DefaultServiceInstance("pod-b", "blobs", "10.1.0.6", 8080, false, Map.of("port.xio", "7000"))));
        resolver = new DiscoveryClientEndpointResolver(discovery, Duration.ofHours(1), true);
        final Heard heard = new Heard();
        resolver.watch("blobs", heard);

        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).containsExactly(
            new Endpoint("announced", "host-a", List.of(XioUri.parse("tcp://10.0.0.1:7000")), Map.of()));
    }

    @Test
    void aHeartbeatReadsAgainAndOnlyAChangeIsReported() throws Exception
    {
        discovery.instances.set(List.of(instance("a-1", Map.of("xio.portals", "tcp://10.0.0.1:7000"))));
        resolver = new DiscoveryClientEndpointResolver(discovery, Duration.ofHours(1)); // no timer in this test
        final Heard heard = new Heard();
        resolver.watch("blobs", heard);
        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).extracting(Endpoint::id).containsExactly("a-1");

        final int readsBefore = discovery.reads.get();
        resolver.onApplicationEvent(new HeartbeatEvent(this, 1L)); // same instances: read, not reported
        await().until(() -> discovery.reads.get() > readsBefore);

        discovery.instances.set(List.of(instance("a-1", Map.of("xio.portals", "tcp://10.0.0.1:7000")),
            instance("b-1", Map.of("xio.portals", "tcp://10.0.0.2:7000"))));
        resolver.onApplicationEvent(new HeartbeatEvent(this, 2L));
        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).extracting(Endpoint::id).containsExactly("a-1", "b-1");
        assertThat(heard.sets).isEmpty(); // the unchanged read before was not reported

        discovery.instances.set(List.of(instance("b-1", Map.of("xio.portals", "tcp://10.0.0.2:7001"))));
        resolver.onApplicationEvent(new HeartbeatEvent(this, 3L)); // a member left, another moved its portal
        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).containsExactly(
            new Endpoint("b-1", "", List.of(XioUri.parse("tcp://10.0.0.2:7001")), Map.of()));
    }

    @Test
    void theTimerReadsAgainWithoutHeartbeats() throws Exception
    {
        resolver = new DiscoveryClientEndpointResolver(discovery, Duration.ofMillis(50));
        final Heard heard = new Heard();
        resolver.watch("blobs", heard);
        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).isEmpty();

        discovery.instances.set(List.of(instance("a-1", Map.of("xio.portals", "tcp://10.0.0.1:7000"))));
        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).extracting(Endpoint::id).containsExactly("a-1");
    }

    @Test
    void aFailingDiscoveryClientIsReportedAndTheLastSetStands() throws Exception
    {
        discovery.instances.set(List.of(instance("a-1", Map.of("xio.portals", "tcp://10.0.0.1:7000"))));
        resolver = new DiscoveryClientEndpointResolver(discovery, Duration.ofMillis(50));
        final Heard heard = new Heard();
        resolver.watch("blobs", heard);
        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).extracting(Endpoint::id).containsExactly("a-1");

        discovery.failure.set(new IllegalStateException("registry unreachable"));
        assertThat(heard.errors.poll(10, TimeUnit.SECONDS)).hasMessage("registry unreachable");
        assertThat(heard.sets).isEmpty(); // no empty set reported for a failure

        discovery.failure.set(null); // back, unchanged: nothing new to report
        final int readsBefore = discovery.reads.get();
        await().until(() -> discovery.reads.get() > readsBefore + 2);
        assertThat(heard.sets).isEmpty();
    }

    @Test
    void aClosedWatchHearsNoMore() throws Exception
    {
        resolver = new DiscoveryClientEndpointResolver(discovery, Duration.ofMillis(50));
        final Heard heard = new Heard();
        final EndpointResolver.Watch watch = resolver.watch("blobs", heard);
        assertThat(heard.sets.poll(10, TimeUnit.SECONDS)).isEmpty();
        watch.close();
        discovery.instances.set(List.of(instance("a-1", Map.of("xio.portals", "tcp://10.0.0.1:7000"))));
        final int readsBefore = discovery.reads.get();
        // Several timer periods: a watch still open would have heard the change.
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
            .untilAsserted(() ->
            {
                assertThat(discovery.reads.get()).isEqualTo(readsBefore);
                assertThat(heard.sets).isEmpty();
            });
    }

    @Test
    void wildcardPortalsAreAnnouncedWithTheRegistrationsHost()
    {
        assertThat(XioServiceRegistration.announced(XioUri.parse("tcp://0.0.0.0:7000"), "10.1.2.3"))
            .isEqualTo("tcp://10.1.2.3:7000");
        assertThat(XioServiceRegistration.announced(XioUri.parse("tls://[::]:7443"), "fe80::1"))
            .isEqualTo("tls://[fe80::1]:7443");
        assertThat(XioServiceRegistration.announced(XioUri.parse("tcp://127.0.0.1:7000"), "10.1.2.3"))
            .isEqualTo("tcp://127.0.0.1:7000");
        assertThat(XioServiceRegistration.announced(XioUri.parse("shm://blobs"), "10.1.2.3"))
            .isEqualTo("shm://blobs");
    }
}
