package io.xio.cluster.dns;

import io.xio.cluster.DnsEndpointResolver;
import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointResolver;
import io.xio.cluster.EndpointStatus;
import io.xio.cluster.ServiceClient;
import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A service client over a DNS name through the JDK's own resolution: this JVM (the surefire execution
 * {@code hosts-file}) reads names from a hosts file ({@code -Djdk.net.hosts.file}) that the tests rewrite, and caches
 * nothing ({@code networkaddress.cache.ttl} and {@code networkaddress.cache.negative.ttl} 0, set through
 * {@code -Djava.security.properties}, since the JDK's own {@code java.security} sets the negative one, which the
 * system property {@code sun.net.inetaddr.negative.ttl} cannot override). The JDK reads the file again on every
 * lookup. Servers listen on loopback addresses 127.0.0.x, all on one port, as the pods of a headless service do.
 */
@Tag("hosts-file")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DnsNameResolutionTest
{
    private static final String NAME = "kv.xio-dns.test";
    private static final String SERVICE = "kv";

    private final TestEngines engines = new TestEngines();
    private final List<AutoCloseable> closing = new ArrayList<>();
    /** The servers by loopback address, all on {@link #port}. */
    private final Map<String, Server> servers = new LinkedHashMap<>();
    private Path hosts;
    private int port;

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
    void close() throws Exception
    {
        for (int i = closing.size() - 1; i >= 0; i--)
        {
            closing.get(i).close();
        }
        engines.close();
        names();
    }

    /** One server at a loopback address: counts the calls it answers. */
    private record Server(XioEngine engine, AtomicInteger served)
    {
    }

    /** Starts a server at each of {@code addresses}, all on one port (found free on every one of them). */
    private void serve(final String... addresses)
    {
        for (int attempt = 0; servers.isEmpty(); attempt++)
        {
            final Map<String, Server> started = new LinkedHashMap<>();
            try
            {
                int chosen = 0;
                for (final String address : addresses)
                {
                    final Server server = new Server(engines.start("server-" + address), new AtomicInteger());
                    server.engine().register(SERVICE, request ->
                    {
                        server.served().incrementAndGet();
                        request.message().close();
                        request.respond(Outbound.of(utf8(address)));
                    });
                    started.put(address, server);
                    final Portal portal = server.engine().bind("tcp://" + address + ":" + chosen);
                    chosen = portal.uri().port();
                }
                servers.putAll(started);
                port = chosen;
            }
            catch (final RuntimeException taken)
            {
                started.values().forEach(s -> s.engine().close());
                if (attempt == 5)
                {
                    throw taken;
                }
            }
        }
    }

    /** Writes the hosts file: {@link #NAME} at {@code addresses} (none: the name is unknown), atomically. */
    private void names(final String... addresses)
    {
        final StringBuilder text = new StringBuilder("127.0.0.1 localhost\n");
        for (final String address : addresses)
        {
            text.append(address).append(' ').append(NAME).append('\n');
        }
        try
        {
            final Path next = hosts.resolveSibling("hosts.next");
            Files.writeString(next, text);
            Files.move(next, hosts, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** A resolver with the JDK's lookup, counted. */
    private DnsEndpointResolver resolver(final AtomicInteger lookups,
        final UnaryOperator<DnsEndpointResolver.Builder> settings)
    {
        final DnsEndpointResolver resolver = settings.apply(DnsEndpointResolver.builder().lookup(host ->
        {
            lookups.incrementAndGet();
            return DnsEndpointResolver.Lookup.JDK.addresses(host);
        })).build();
        closing.add(resolver);
        return resolver;
    }

    private ServiceClient client(final EndpointResolver resolver)
    {
        final ServiceClient client = ServiceClient.builder(engines.start("client"), resolver,
            "dns:///" + NAME + ":" + port)
            .resource(SERVICE)
            .removalGrace(Duration.ZERO)
            .sessionOptions(SessionOptions.DEFAULT.withTimeout(TestEngines.scaled(Duration.ofSeconds(5))))
            .build();
        closing.add(client);
        return client;
    }

    private static String call(final ServiceClient client) throws Exception
    {
        try (Message response = client.request(Outbound.of(utf8("hi")), CallOptions.DEFAULT).get(20,
            TimeUnit.SECONDS))
        {
            return text(response.header());
        }
    }

    /** Waits until the client's active endpoints are the portals at exactly {@code addresses}. */
    private void awaitActive(final ServiceClient client, final String... addresses)
    {
        final List<String> expected = new ArrayList<>();
        for (final String address : addresses)
        {
            expected.add("tcp://" + address + ":" + port);
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(client.endpoints().stream()
            .filter(e -> e.state() == EndpointStatus.State.ACTIVE).map(e -> e.endpoint().id()))
            .containsExactlyInAnyOrderElementsOf(expected));
    }

    /** Makes {@code count} calls; returns how many each server answered. */
    private Map<String, Integer> spread(final ServiceClient client, final int count) throws Exception
    {
        final Map<String, Integer> before = new LinkedHashMap<>();
        servers.forEach((address, server) -> before.put(address, server.served().get()));
        for (int i = 0; i < count; i++)
        {
            call(client);
        }
        final Map<String, Integer> answered = new LinkedHashMap<>();
        servers.forEach((address, server) -> answered.put(address, server.served().get() - before.get(address)));
        return answered;
    }

    @Test
    void callsSpreadOverEveryAddressOfTheNameAndFollowAnAddressAddedAndOneRemoved() throws Exception
    {
        serve("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5");
        names("127.0.0.2", "127.0.0.3", "127.0.0.4");
        final ServiceClient client = client(resolver(new AtomicInteger(),
            b -> b.refreshInterval(Duration.ofMillis(100)).minRefreshInterval(Duration.ofMillis(50))));
        awaitActive(client, "127.0.0.2", "127.0.0.3", "127.0.0.4");
        assertThat(spread(client, 30)).containsExactly(Map.entry("127.0.0.2", 10), Map.entry("127.0.0.3", 10),
            Map.entry("127.0.0.4", 10), Map.entry("127.0.0.5", 0));

        names("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"); // a pod became ready
        awaitActive(client, "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5");
        assertThat(spread(client, 40)).containsExactly(Map.entry("127.0.0.2", 10), Map.entry("127.0.0.3", 10),
            Map.entry("127.0.0.4", 10), Map.entry("127.0.0.5", 10));

        names("127.0.0.3", "127.0.0.4", "127.0.0.5"); // one left the service (its server still listens)
        awaitActive(client, "127.0.0.3", "127.0.0.4", "127.0.0.5");
        assertThat(spread(client, 30)).containsExactly(Map.entry("127.0.0.2", 0), Map.entry("127.0.0.3", 10),
            Map.entry("127.0.0.4", 10), Map.entry("127.0.0.5", 10));
    }

    @Test
    void aNameThatStopsResolvingIsReportedAndTheClientGoesOnWithTheLastAddresses() throws Exception
    {
        serve("127.0.0.2", "127.0.0.3");
        names("127.0.0.2", "127.0.0.3");
        final AtomicInteger lookups = new AtomicInteger();
        final DnsEndpointResolver resolver = resolver(lookups, b -> b.refreshInterval(Duration.ofMillis(100)));
        final BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        final BlockingQueue<List<Endpoint>> sets = new LinkedBlockingQueue<>();
        resolver.watch("dns:///" + NAME + ":" + port, new EndpointResolver.Listener()
        {
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
        });
        final ServiceClient client = client(resolver);
        awaitActive(client, "127.0.0.2", "127.0.0.3");
        assertThat(sets.poll(10, TimeUnit.SECONDS)).hasSize(2);

        names(); // the name is gone (a DNS server down, a zone broken)
        assertThat(errors.poll(10, TimeUnit.SECONDS)).isInstanceOf(java.net.UnknownHostException.class)
            .hasMessageContaining(NAME);
        final int failedLookups = lookups.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> lookups.get() > failedLookups + 2); // still failing

        assertThat(sets).as("no set reported for a failure").isEmpty();
        awaitActive(client, "127.0.0.2", "127.0.0.3");
        assertThat(spread(client, 20)).containsExactly(Map.entry("127.0.0.2", 10), Map.entry("127.0.0.3", 10));
    }

    @Test
    void aLostServerMakesTheResolverLookAgainLongBeforeItsPeriodButNoMoreOftenThanItsMinimumInterval()
        throws Exception
    {
        serve("127.0.0.2", "127.0.0.3", "127.0.0.4");
        names("127.0.0.2", "127.0.0.3");
        final AtomicInteger lookups = new AtomicInteger();
        final DnsEndpointResolver dns = resolver(lookups,
            b -> b.refreshInterval(Duration.ofHours(1)).minRefreshInterval(Duration.ofSeconds(1)));
        final AtomicInteger asked = new AtomicInteger();
        final ServiceClient client = client((service, listener) ->
        {
            final EndpointResolver.Watch watch = dns.watch(service, listener);
            return new EndpointResolver.Watch()
            {
                @Override
                public void refresh()
                {
                    asked.incrementAndGet();
                    watch.refresh();
                }

                @Override
                public void close()
                {
                    watch.close();
                }
            };
        });
        awaitActive(client, "127.0.0.2", "127.0.0.3");
        assertThat(lookups.get()).isEqualTo(1);

        // The pod at .2 dies; the name gains .4 but keeps .2 (its record not yet gone). Nothing would be looked up
        // for an hour: the lost server makes the client ask at once.
        names("127.0.0.2", "127.0.0.3", "127.0.0.4");
        servers.get("127.0.0.2").engine().close();
        awaitActive(client, "127.0.0.3", "127.0.0.4");

        // .2 stays listed and unreachable: each failed opening asks again, the resolver looks up once a second.
        final int asksBefore = asked.get();
        final int lookupsBefore = lookups.get();
        final long started = System.nanoTime();
        await().atMost(Duration.ofSeconds(20)).until(() -> asked.get() >= asksBefore + 10);
        Thread.sleep(1500);
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + 1;
        assertThat(lookups.get() - lookupsBefore).as("lookups in %d s, asked %d times", seconds,
            asked.get() - asksBefore).isBetween(1, (int)seconds + 1);
        assertThat(spread(client, 20)).containsExactly(Map.entry("127.0.0.2", 0), Map.entry("127.0.0.3", 10),
            Map.entry("127.0.0.4", 10));
    }
}
