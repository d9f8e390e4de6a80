package io.xio.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Connection portals ({@link SetupDecision.Accept#withConnectionPortals}) through real engines: a session's further
 * connections go to the portals its acceptor named, each served by its own context, so the server side of one
 * session runs on several context threads; calls complete, exactly once, also across a connection drop.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionPortalsTest
{
    private final TestEngines engines = new TestEngines();
    /** How often each request (by its header) was executed. */
    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

    @AfterEach
    void close()
    {
        engines.close();
    }

    private static String address(final String transport)
    {
        return "tcp".equals(transport) ? "tcp://127.0.0.1:0" : "local://portals-" + UUID.randomUUID();
    }

    private XioEngine server()
    {
        final XioEngine server = engines.start("server");
        // Answers with the name of the thread that served it: which context the request's connection is on.
        server.register("where", request ->
        {
            final String header = text(request.message().header());
            executions.computeIfAbsent(header, h -> new AtomicInteger()).incrementAndGet();
            request.message().close();
            request.respond(Outbound.of(utf8(Thread.currentThread().getName())));
        });
        return server;
    }

    /** Threads of both parities of id: a session's lane is picked by the calling thread's id. */
    private static List<Thread> callers(final Runnable... work)
    {
        final List<Thread> threads = new ArrayList<>();
        final Set<Long> parities = new java.util.HashSet<>();
        int next = 0;
        while (threads.size() < work.length)
        {
            final Thread thread = new Thread(work[next]);
            if (parities.add(thread.getId() % 2) || parities.size() == 2 && threads.size() >= 2)
            {
                threads.add(thread);
                next++;
            }
        }
        return threads;
    }

    /** Calls from two threads of unlike ids, {@code perThread} each; returns the server threads that served them. */
    private static Set<String> servedBy(final Session session, final int perThread, final Runnable midway)
        throws Exception
    {
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicInteger calls = new AtomicInteger();
        final Runnable caller = () ->
        {
            final List<XioFuture<Message>> futures = new ArrayList<>();
            final String me = Thread.currentThread().getName();
            for (int i = 0; i < perThread; i++)
            {
                futures.add(session.request(Outbound.of(utf8(me + "/" + i))));
                if (calls.incrementAndGet() == perThread)
                {
                    midway.run();
                }
            }
            for (final XioFuture<Message> future : futures)
            {
                try (Message response = future.get(20, TimeUnit.SECONDS))
                {
                    threads.add(text(response.header()));
                }
                catch (final Exception ex)
                {
                    failure.compareAndSet(null, ex);
                }
            }
        };
        final List<Thread> threads2 = callers(caller, caller);
        threads2.forEach(Thread::start);
        for (final Thread thread : threads2)
        {
            thread.join();
        }
        if (failure.get() != null)
        {
            throw new AssertionError("a call failed", failure.get());
        }
        return threads;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "local"})
    void aSessionsConnectionsRunOnTheContextsOfItsConnectionPortals(final String transport) throws Exception
    {
        final XioEngine server = server();
        final Portal second = server.bind(address(transport), PortalOptions.DEFAULT.withContext(1));
        final Portal spreading = server.bind(address(transport),
            PortalOptions.DEFAULT
                .withAcceptor(request -> SetupDecision.accept().withConnectionPortals(List.of(second.uri())))
                .withContext(0));
        final Portal plain = server.bind(address(transport), PortalOptions.DEFAULT.withContext(0));
        final XioEngine client = engines.start("client");
        try (Session spread = client.connect(spreading.uri().withResource("where").toString(),
                SessionOptions.DEFAULT.withConnections(2));
             Session single = client.connect(plain.uri().withResource("where").toString(),
                 SessionOptions.DEFAULT.withConnections(2)))
        {
            assertThat(spread.connectionCount()).isEqualTo(2);
            assertThat(servedBy(spread, 50, () -> { })).as("served on both contexts").hasSize(2);
            assertThat(servedBy(single, 50, () -> { })).as("without connection portals: the accepting one's")
                .hasSize(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "local"})
    void callsOverConnectionPortalsRunExactlyOnceAcrossAConnectionDrop(final String transport) throws Exception
    {
        final XioEngine server = server();
        final Portal second = server.bind(address(transport), PortalOptions.DEFAULT.withContext(1));
        final Portal spreading = server.bind(address(transport),
            PortalOptions.DEFAULT
                .withAcceptor(request -> SetupDecision.accept().withConnectionPortals(List.of(second.uri())))
                .withContext(0));
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(spreading.uri().withResource("where").toString()))
        {
            servedBy(session, 200, session::abortConnections);
            assertThat(executions).hasSize(400);
            assertThat(executions.values()).as("each executed once").allMatch(count -> count.get() == 1);
            // Reconnected where they were: to the accepting portal and to the connection portal.
            await().atMost(Duration.ofSeconds(10)).until(() -> session.connectionCount() == 2);
            assertThat(servedBy(session, 50, () -> { })).hasSize(2);
        }
    }
}
