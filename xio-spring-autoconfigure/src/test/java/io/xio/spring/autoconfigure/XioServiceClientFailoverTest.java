package io.xio.spring.autoconfigure;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointResolver;
import io.xio.cluster.StaticEndpointResolver;
import io.xio.engine.ConnectionException;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.sample.failover.client.LedgerClient;
import io.xio.spring.autoconfigure.sample.failover.client.LedgerClientApplication;
import io.xio.spring.autoconfigure.sample.failover.server.LedgerServerApplication;
import io.xio.spring.autoconfigure.sample.failover.server.LedgerService;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A client that names a service ({@code xio.clients.<name>.service-id}, over an application's own
 * {@link EndpointResolver}) whose first server dies (its portals closed and its connections dropped, no CLOSE sent,
 * as a {@code kill -9} would) while a read and a write are in flight on it and it never answers them. The read is
 * idempotent: its session fails it at once and the proxy's retry sends it to the other server, long before the
 * dead server's session gives up re-attaching. The write is not: it fails with {@link ConnectionException} once
 * the session gives up, and ran nowhere else.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class XioServiceClientFailoverTest
{
    /** How long the client's sessions try to re-attach: far longer than the read may take to be answered. */
    private static final Duration REATTACH = Duration.ofSeconds(10);

    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers()
    {
        callers.shutdownNow();
    }

    @Test
    void anIdempotentCallInFlightOnAKilledServerIsAnsweredByAnotherAWriteFailsAndRunsNowhereElse()
    {
        runner(LedgerServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
            "test.server-id=a", "test.hold=true").run(first ->
            runner(LedgerServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
                "test.server-id=b").run(second ->
                {
                    final LedgerService dying = first.getBean(LedgerService.class);
                    final LedgerService surviving = second.getBean(LedgerService.class);
                    final StaticEndpointResolver resolver = StaticEndpointResolver.of("ledger",
                        List.of(endpoint("a", first), endpoint("b", second)));
                    try
                    {
                        runner(LedgerClientApplication.class)
                            .withBean(EndpointResolver.class, () -> resolver)
                            .withBean(XioEngineCustomizer.class, () -> builder -> builder.reconnectTimeout(REATTACH))
                            .withPropertyValues("xio.clients.ledger.service-id=ledger",
                                "xio.clients.ledger.timeout=40s", "xio.client.retry.initial-backoff=10ms",
                                "xio.client.retry.max-backoff=20ms")
                            .run(client ->
                            {
                                assertThat(client).hasNotFailed();
                                final LedgerClient ledger = client.getBean(LedgerClient.class);
                                await().atMost(Duration.ofSeconds(20)).until(() -> client
                                    .getBean(XioClientRegistry.class).statuses().get(0).activeEndpoints() == 2);
                                final CompletableFuture<String> read = inFlightOn(dying, "read:", ledger::read);
                                final CompletableFuture<String> write = inFlightOn(dying, "write:", ledger::write);
                                final String readKey = key(dying, "read:");
                                final String writeKey = key(dying, "write:");

                                kill(first);

                                assertThat(read.get(REATTACH.toSeconds() / 2, TimeUnit.SECONDS))
                                    .as("answered by the survivor").isEqualTo("b");
                                assertThat(write).as("still waiting for the dead server's re-attach").isNotDone();
                                assertThatThrownBy(() -> write.get(30, TimeUnit.SECONDS))
                                    .isInstanceOf(ExecutionException.class).cause()
                                    .isInstanceOf(ConnectionException.class);
                                assertThat(surviving.ran()).contains("read:" + readKey)
                                    .doesNotContain("write:" + writeKey);
                                assertThat(dying.ran()).containsOnlyOnce("read:" + readKey, "write:" + writeKey);
                                // New calls go to the survivor.
                                assertThat(ledger.write("after")).isEqualTo("b");
                            });
                    }
                    finally
                    {
                        dying.release();
                    }
                }));
    }

    /**
     * Starts calls of {@code call} one at a time until one is in flight on {@code server} (those the balancer sends
     * to the other server are answered at once); returns that one's result.
     */
    private CompletableFuture<String> inFlightOn(final LedgerService server, final String prefix,
        final Function<String, String> call)
    {
        for (int i = 0; i < 10; i++)
        {
            final String key = prefix + i;
            final CompletableFuture<String> started = CompletableFuture.supplyAsync(() -> call.apply(key), callers);
            await().atMost(Duration.ofSeconds(10)).until(() -> started.isDone() || held(server, prefix) != null);
            if (held(server, prefix) != null)
            {
                return started;
            }
            assertThat(started.join()).isEqualTo("b");
        }
        throw new AssertionError("no " + prefix + " call reached " + server.ran());
    }

    private static String held(final LedgerService server, final String prefix)
    {
        return server.ran().stream().filter(c -> c.startsWith(prefix)).findFirst().orElse(null);
    }

    private static String key(final LedgerService server, final String prefix)
    {
        return held(server, prefix).substring(prefix.length());
    }

    /** As {@code kill -9} would leave it: nothing listens at its portals, its connections drop, no CLOSE is sent. */
    private static void kill(final ApplicationContext server)
    {
        final XioEngine engine = server.getBean(XioEngine.class);
        engine.portals().forEach(Portal::close);
        engine.sessions().forEach(Session::abortConnections);
    }

    private static Endpoint endpoint(final String id, final ApplicationContext server)
    {
        return Endpoint.of(id, "host-" + id,
            List.of(server.getBean(XioServiceExporter.class).portals().get(0).uri().endpoint()));
    }
}
