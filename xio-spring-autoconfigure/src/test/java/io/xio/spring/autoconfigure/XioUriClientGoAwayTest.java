package io.xio.spring.autoconfigure;

import io.xio.engine.GoAway;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.sample.failover.client.LedgerClient;
import io.xio.spring.autoconfigure.sample.failover.client.LedgerClientApplication;
import io.xio.spring.autoconfigure.sample.failover.server.LedgerServerApplication;
import io.xio.spring.autoconfigure.sample.failover.server.LedgerService;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client given a URI whose server tells its session to go away ({@link Session#goAway} with a redirect, as a
 * server moving a resource to another node would): the client opens a new session at the portal the GOAWAY named,
 * the calls the old session refused unsent land there, none fails, and each write ran exactly once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioUriClientGoAwayTest
{
    @Test
    void aSessionToldToGoAwayToAnotherPortalIsReplacedThereWithoutAFailedCall()
    {
        runner(LedgerServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
            "test.server-id=a").run(first ->
            runner(LedgerServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
                "test.server-id=b").run(second ->
                runner(LedgerClientApplication.class)
                    .withPropertyValues("xio.clients.ledger.uri=" + portal(first).withResource("ledger"))
                    .run(client ->
                    {
                        assertThat(client).hasNotFailed();
                        final LedgerClient ledger = client.getBean(LedgerClient.class);
                        assertThat(ledger.write("first")).isEqualTo("a");
                        final AtomicBoolean running = new AtomicBoolean(true);
                        final List<Throwable> failures = new CopyOnWriteArrayList<>();
                        final List<String> answeredBy = new CopyOnWriteArrayList<>();
                        final AtomicInteger done = new AtomicInteger();
                        final List<Thread> loops = new ArrayList<>();
                        for (int t = 0; t < 2; t++)
                        {
                            final String prefix = "t" + t + "-";
                            final Thread loop = new Thread(() ->
                            {
                                for (int i = 0; running.get(); i++)
                                {
                                    try
                                    {
                                        answeredBy.add(ledger.write(prefix + i));
                                        done.incrementAndGet();
                                    }
                                    catch (final RuntimeException ex)
                                    {
                                        failures.add(ex);
                                    }
                                }
                            }, "ledger-" + t);
                            loop.start();
                            loops.add(loop);
                        }
                        await().atMost(Duration.ofSeconds(10)).until(() -> done.get() > 50);

                        final List<Session> told = first.getBean(XioEngine.class).sessions();
                        assertThat(told).hasSize(1);
                        told.get(0).goAway(GoAway.redirect(List.of(portal(second)), "moving the ledger"));

                        await().atMost(Duration.ofSeconds(20)).until(() -> answeredBy.contains("b"));
                        answeredBy.clear();
                        final int before = done.get();
                        await().atMost(Duration.ofSeconds(10)).until(() -> done.get() > before + 50);
                        running.set(false);
                        for (final Thread loop : loops)
                        {
                            loop.join(10_000);
                        }

                        assertThat(failures).isEmpty();
                        assertThat(answeredBy).containsOnly("b");
                        assertThat(second.getBean(LedgerService.class).ran()).isNotEmpty();
                        final Map<String, Integer> ran = new HashMap<>();
                        for (final ApplicationContext server : List.of(first, second))
                        {
                            server.getBean(LedgerService.class).ran().forEach(c -> ran.merge(c, 1, Integer::sum));
                        }
                        assertThat(ran.values()).as("each write ran once").containsOnly(1);
                        assertThat(ran).hasSize(done.get() + 1);
                        await().atMost(Duration.ofSeconds(10)).until(() -> !told.get(0).isOpen());
                    })));
    }

    private static io.xio.engine.XioUri portal(final ApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().endpoint();
    }
}
