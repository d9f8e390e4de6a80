package io.xio.spring.autoconfigure;

import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.ledger.LedgerKeys;
import io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers;
import io.xio.spring.autoconfigure.ledger.XioLedgerAutoConfiguration;
import io.xio.spring.autoconfigure.reflection.XioReflectionAutoConfiguration;
import io.xio.spring.call.XioClientInterceptor;
import io.xio.spring.call.XioServerInterceptor;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.service.ServiceDispatcher;
import io.xio.spring.service.XioServiceExporter;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * What the exactly-once tests share: a server application on a real database with Boot's JDBC and transaction
 * auto-configuration and xio's ledger; a client interceptor giving calls the application's own key; a server
 * interceptor noting the key and attempts each call carried; instrumentation noting what was replayed; and a call in
 * JSON made on a bare session.
 */
final class ExactlyOnceFixtures
{
    private ExactlyOnceFixtures()
    {
    }

    /**
     * An application with an embedded H2 (a fresh one per context), its transactions, xio's ledger, and calls in
     * JSON (which go with reflection).
     */
    static ApplicationContextRunner server(final Class<?> application)
    {
        return serverWithoutTransactionManagement(application)
            .withConfiguration(AutoConfigurations.of(TransactionAutoConfiguration.class));
    }

    /**
     * {@link #server} without Boot's transaction auto-configuration: no {@code @EnableTransactionManagement}, so no
     * {@code @Transactional} is applied by Spring, and xio alone reads the methods' transaction settings.
     */
    static ApplicationContextRunner serverWithoutTransactionManagement(final Class<?> application)
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
                DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                JdbcTemplateAutoConfiguration.class, XioLedgerAutoConfiguration.class,
                XioReflectionAutoConfiguration.class))
            .withUserConfiguration(application)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s", "xio.portals[0].uri=tcp://127.0.0.1:0",
                "spring.datasource.generate-unique-name=true");
    }

    static int port(final ApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
    }

    /**
     * The ledger entries of {@code key} sent by an anonymous caller to any method of the transfers service: 1 once
     * its call committed, 0 before or after a rollback. The ledger keeps a key within its method and caller
     * ({@link LedgerKeys}).
     */
    static int entries(final ApplicationContext server, final String key)
    {
        int entries = 0;
        for (final java.lang.reflect.Method method : Transfers.class.getMethods())
        {
            final String scoped = LedgerKeys.scoped("transfers/" + ServiceMethod.of(method, Transfers.class).wireName(),
                null, key);
            entries += server.getBean(JdbcTemplate.class).queryForObject(
                "SELECT COUNT(*) FROM xio_execution_ledger WHERE idempotency_key = ?", Integer.class, scoped);
        }
        return entries;
    }

    /** Gives each call the key set here, if any, as an application sets its own. */
    static final class OwnKey implements XioClientInterceptor
    {
        volatile @Nullable String key;

        @Override
        public @Nullable Object intercept(final io.xio.spring.call.XioClientCall call,
            final io.xio.spring.call.XioCallChain chain) throws Throwable
        {
            final String own = key;
            if (own != null)
            {
                call.idempotencyKey(own);
            }
            return chain.proceed();
        }
    }

    /** The key and the previous attempts' entry each call carried, in order. */
    static final class KeysSeen implements XioServerInterceptor
    {
        final List<String> keys = new CopyOnWriteArrayList<>();
        final List<String> previousAttempts = new CopyOnWriteArrayList<>();

        @Override
        public @Nullable Object intercept(final io.xio.spring.call.XioServerCall call,
            final io.xio.spring.call.XioCallChain chain) throws Throwable
        {
            keys.add(String.valueOf(call.metadata().get(IdempotencyKeys.METADATA_KEY)));
            previousAttempts.add(String.valueOf(call.metadata().get(IdempotencyKeys.PREVIOUS_ATTEMPTS_KEY)));
            return chain.proceed();
        }
    }

    /** Server instrumentation noting, per exactly-once call answered, "executed" or "replayed", and outcomes. */
    static final class Replays implements XioInstrumentation
    {
        final List<String> answers = new CopyOnWriteArrayList<>();
        final List<XioCallOutcome> outcomes = new CopyOnWriteArrayList<>();

        @Override
        public CallRecorder recorder(final XioCall call)
        {
            return new CallRecorder()
            {
                @Override
                public @Nullable Object start(final @Nullable Metadata metadata)
                {
                    return null;
                }

                @Override
                public void exactlyOnce(final @Nullable Object started, final boolean replayed)
                {
                    answers.add(call.method() + (replayed ? " replayed" : " executed"));
                }

                @Override
                public void stop(final @Nullable Object started, final long startNanos, final XioCallOutcome outcome,
                    final @Nullable Throwable failure)
                {
                    if (call.side() == XioCall.Side.SERVER && !call.service().startsWith("xio."))
                    {
                        outcomes.add(outcome);
                    }
                }
            };
        }
    }

    /**
     * Calls {@code method} of the transfers service with {@code arguments} in JSON on a bare session, with
     * {@code metadata}: the answer's JSON text.
     */
    static String callInJson(final ApplicationContext server, final String method, final String arguments,
        final Metadata metadata) throws Exception
    {
        try (XioEngine engine = XioEngine.builder().contexts(1).build();
            Session session = engine.openSession("tcp://127.0.0.1:" + port(server) + "/transfers",
                io.xio.engine.SessionOptions.DEFAULT).get(10, TimeUnit.SECONDS))
        {
            final Outbound request = Outbound.of(Invocation.header(method, arguments.getBytes(StandardCharsets.UTF_8)))
                .metadata(metadata.add(ServiceDispatcher.CODEC_KEY, ServiceDispatcher.JSON));
            try (Message answer = session.request(request).get(10, TimeUnit.SECONDS))
            {
                return new String(answer.headerBytes(), StandardCharsets.UTF_8);
            }
        }
    }
}
