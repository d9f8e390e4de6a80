package io.xio.spring.autoconfigure.diagnostics;

import io.xio.annotation.XioMethod;
import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.ledger.XioLedgerAutoConfiguration;
import io.xio.spring.autoconfigure.ledger.XioLedgerCleanerLifecycle;
import io.xio.spring.autoconfigure.ledger.XioLedgerSchemaInitializer;
import io.xio.spring.exactlyonce.TransactionalExactlyOnceCalls;
import io.xio.spring.service.ExactlyOnceSetupException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An exactly-once method that cannot run exactly once fails start-up with an analysis naming the service, the method,
 * what is missing or wrong, and what to do: no transaction manager, no ledger on the class path, a
 * {@code @Transactional} that would not join the ledger's transaction, a service running inline, a database the
 * ledger's table cannot be prepared in. With a data source and its transaction manager the application starts, its
 * ledger's table created in the embedded database.
 */
class ExactlyOnceStartupTest
{
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            DataSourceAutoConfiguration.class, XioLedgerAutoConfiguration.class))
        .withPropertyValues("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0",
            "spring.datasource.generate-unique-name=true");

    /** An exactly-once API. */
    public interface Payments
    {
        @XioMethod(exactlyOnce = true)
        String pay(String id);
    }

    @XioService("payments")
    public static class PaymentsService implements Payments
    {
        @Override
        public String pay(final String id)
        {
            return id;
        }
    }

    @XioService("payments")
    public static class NewTransactionPayments implements Payments
    {
        @Override
        @Transactional(propagation = Propagation.REQUIRES_NEW)
        public String pay(final String id)
        {
            return id;
        }
    }

    /** An exactly-once API answered with a future, which a client may use but a service may not. */
    public interface AsyncPayments
    {
        @XioMethod(exactlyOnce = true)
        java.util.concurrent.CompletableFuture<String> pay(String id);
    }

    @XioService("payments")
    public static class AsyncPaymentsService implements AsyncPayments
    {
        @Override
        public java.util.concurrent.CompletableFuture<String> pay(final String id)
        {
            return java.util.concurrent.CompletableFuture.completedFuture(id);
        }
    }

    @Test
    void aServiceMethodAnsweringWithAFutureFailsStartUpNamingIt()
    {
        runner.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
            .withBean(AsyncPaymentsService.class)
            .run(context -> assertAnalysis(context, "AsyncPayments.pay(String)", "CompletableFuture",
                "synchronously"));
    }

    @XioService(value = "payments", dispatch = XioService.Dispatch.INLINE)
    public static class InlinePayments implements Payments
    {
        @Override
        public String pay(final String id)
        {
            return id;
        }
    }

    @Test
    void withoutATransactionManagerStartUpFailsNamingTheServiceAndTheMethod()
    {
        runner.withBean(PaymentsService.class).run(context -> assertAnalysis(context,
            "Payments.pay(String)", "'payments'", "no transaction manager", "spring-boot-starter-jdbc"));
    }

    /** A transaction manager that binds no JDBC connection (as a JTA one): the ledger has nothing to write on. */
    static final class NoDataSourceTransactions extends AbstractPlatformTransactionManager
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected Object doGetTransaction()
        {
            return new Object();
        }

        @Override
        protected void doBegin(final Object transaction, final TransactionDefinition definition)
        {
        }

        @Override
        protected void doCommit(final DefaultTransactionStatus status)
        {
        }

        @Override
        protected void doRollback(final DefaultTransactionStatus status)
        {
        }
    }

    @Test
    void aTransactionManagerWithoutADataSourceFailsStartUpRatherThanWritingTheLedgerOnAnother()
    {
        runner.withBean(PlatformTransactionManager.class, NoDataSourceTransactions::new)
            .withBean(PaymentsService.class)
            .run(context -> assertAnalysis(context, "Payments.pay(String)", "runs on no DataSource",
                "NoDataSourceTransactions"));
    }

    @Test
    void withoutTheLedgerOnTheClassPathStartUpFailsSayingWhatToAdd()
    {
        runner.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader("io.xio.ledger")).withBean(PaymentsService.class)
            .run(context -> assertAnalysis(context, "Payments.pay(String)", "no execution ledger",
                "io.xio:xio-ledger"));
    }

    @Test
    void aMethodWhoseTransactionWouldNotJoinTheLedgersFailsStartUpNamingIt()
    {
        runner.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
            .withBean(NewTransactionPayments.class)
            .run(context -> assertAnalysis(context, "Payments.pay(String)", "REQUIRES_NEW", "REQUIRED"));
    }

    @Test
    void aServiceRunningInlineCannotHaveExactlyOnceMethods()
    {
        runner.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
            .withBean(InlinePayments.class)
            .run(context -> assertAnalysis(context, "Payments.pay(String)", "inline", "dispatch = WORKER"));
    }

    @Test
    void withADataSourceAndItsTransactionManagerItStartsAndCreatesTheLedgersTableInTheEmbeddedDatabase()
    {
        runner.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
            .withBean(PaymentsService.class).run(context ->
            {
                assertThat(context).hasNotFailed().hasSingleBean(XioLedgerSchemaInitializer.class);
                assertThat(context.getBean(XioLedgerCleanerLifecycle.class).isRunning()).isTrue();
                assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                    .queryForObject("SELECT COUNT(*) FROM xio_execution_ledger", Integer.class)).isZero();
            });
        runner.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
            .withPropertyValues("xio.ledger.initialize-schema=never", "xio.ledger.table-name=billing_ledger")
            .withBean(PaymentsService.class).run(context ->
            {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(XioLedgerSchemaInitializer.class).created()).isFalse();
            });
    }

    @Test
    void aDatabaseTheLedgersTableCannotBePreparedInFailsStartUpNamingTheMethod()
    {
        runner.withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
            .withBean(TransactionalExactlyOnceCalls.DatabaseListener.class, () -> (manager, dataSource) ->
            {
                throw new java.sql.SQLException("permission denied to create the table");
            })
            .withBean(PaymentsService.class)
            .run(context ->
            {
                assertThat(context).hasFailed();
                final Throwable failure = context.getStartupFailure();
                assertThat(failure).hasRootCauseInstanceOf(java.sql.SQLException.class);
                final FailureAnalysis analysis = new ExactlyOnceSetupFailureAnalyzer().analyze(failure);
                assertThat(analysis).as("the setup failure found around the database's").isNotNull();
                assertThat(analysis.getDescription() + "\n" + analysis.getAction()).contains("Payments.pay(String)",
                    "permission denied to create the table", "initialize-schema");
            });
    }

    private static void assertAnalysis(final AssertableApplicationContext context, final String... mentions)
    {
        assertThat(context).hasFailed();
        final Throwable failure = context.getStartupFailure();
        assertThat(failure).hasRootCauseInstanceOf(ExactlyOnceSetupException.class);
        final FailureAnalysis analysis = new ExactlyOnceSetupFailureAnalyzer().analyze(failure);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription() + "\n" + analysis.getAction()).contains(mentions);
    }
}
