package io.xio.spring.autoconfigure;

import io.xio.annotation.XioMethod;
import io.xio.annotation.XioService;
import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import io.xio.engine.RemoteException;
import io.xio.ledger.ExactlyOnceExecution;
import io.xio.ledger.ExecutionOutcome;
import io.xio.spring.autoconfigure.ledger.XioLedgerCleanerLifecycle;
import io.xio.spring.autoconfigure.ledger.XioLedgerSchemaInitializer;
import io.xio.spring.call.XioServerInterceptor;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionManager;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.RollbackOn;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.RollbackRuleAttribute;
import org.springframework.transaction.interceptor.RuleBasedTransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionInterceptor;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.callInJson;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.server;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.serverWithoutTransactionManagement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * With two databases and a transaction manager each, an exactly-once method runs in the transaction Spring's own
 * {@code @Transactional} gives it: its ledger entry goes to the database of the manager its annotation names, in the
 * same transaction as its writes (a method that throws after writing leaves neither there), where the ledger's table
 * is created and cleaned, whichever database is primary, if any; the execution bean writes in the database of the
 * primary manager. A transaction a nested
 * {@code @Transactional} marked rollback-only rolls back and fails the call, rather than leaving it unsettled. A
 * transaction already open around the call (a server interceptor's) is refused before the method runs: the ledger
 * begins and ends its own. The rollback rules are the context's, and where Spring applies none (no transaction
 * management, or rules no advisor applies) xio's reading of them alone decides; without transaction management the
 * manager is still chosen by Spring's rules, and placeholders resolved as Spring resolves them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExactlyOnceTransactionManagerTest
{
    private static final String COUNT_ENTRIES = "SELECT COUNT(*) FROM xio_execution_ledger";

    /** Deposits written to the second database. */
    public interface Deposits
    {
        @XioMethod(exactlyOnce = true)
        String deposit(String id);

        @XioMethod(exactlyOnce = true)
        String depositThenFail(String id);
    }

    /** Writes through the second database's template, in the second manager's transactions. */
    @XioService("transfers")
    public static class SecondDatabaseDeposits implements Deposits
    {
        private final JdbcTemplate second;

        SecondDatabaseDeposits(final JdbcTemplate second)
        {
            this.second = second;
        }

        @Override
        @Transactional("secondTransactions")
        public String deposit(final String id)
        {
            second.update("INSERT INTO deposits (id) VALUES (?)", id);
            return id;
        }

        @Override
        @Transactional("secondTransactions")
        public String depositThenFail(final String id)
        {
            second.update("INSERT INTO deposits (id) VALUES (?)", id);
            throw new IllegalStateException("failed after writing " + id);
        }
    }

    /**
     * Two H2 databases, the first primary, each with its manager; the second holds the deposits. Nothing creates the
     * ledger's table: the auto-configuration does, where a ledger writes.
     */
    @Configuration(proxyBeanMethods = false)
    static class TwoDatabases
    {
        @Bean
        @Primary
        DataSource firstDatabase()
        {
            return database();
        }

        @Bean
        DataSource secondDatabase()
        {
            return withDeposits(database());
        }

        @Bean
        @Primary
        DataSourceTransactionManager firstTransactions(final DataSource firstDatabase)
        {
            return new DataSourceTransactionManager(firstDatabase);
        }

        @Bean
        DataSourceTransactionManager secondTransactions(@Qualifier("secondDatabase") final DataSource secondDatabase)
        {
            return new DataSourceTransactionManager(secondDatabase);
        }

        static DataSource database()
        {
            return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
                .setName("eo-" + UUID.randomUUID()).build();
        }

        static DataSource withDeposits(final DataSource database)
        {
            new JdbcTemplate(database).execute("CREATE TABLE deposits (id VARCHAR(64) NOT NULL)");
            return database;
        }
    }

    /** {@link TwoDatabases} with neither database nor manager primary. */
    @Configuration(proxyBeanMethods = false)
    static class TwoDatabasesNonePrimary
    {
        @Bean
        DataSource firstDatabase()
        {
            return TwoDatabases.database();
        }

        @Bean
        DataSource secondDatabase()
        {
            return TwoDatabases.withDeposits(TwoDatabases.database());
        }

        @Bean
        DataSourceTransactionManager firstTransactions(@Qualifier("firstDatabase") final DataSource firstDatabase)
        {
            return new DataSourceTransactionManager(firstDatabase);
        }

        @Bean
        DataSourceTransactionManager secondTransactions(@Qualifier("secondDatabase") final DataSource secondDatabase)
        {
            return new DataSourceTransactionManager(secondDatabase);
        }
    }

    /** The first database primary, but the primary manager the second's. */
    @Configuration(proxyBeanMethods = false)
    static class PrimaryManagerOfTheOtherDatabase
    {
        @Bean
        @Primary
        DataSource firstDatabase()
        {
            return TwoDatabases.database();
        }

        @Bean
        DataSource secondDatabase()
        {
            return TwoDatabases.withDeposits(TwoDatabases.database());
        }

        @Bean
        @Primary
        DataSourceTransactionManager secondTransactions(@Qualifier("secondDatabase") final DataSource secondDatabase)
        {
            return new DataSourceTransactionManager(secondDatabase);
        }
    }

    /** Writes a row, then fails: a {@code @Transactional} the deposits call, which marks their transaction. */
    public static class FailingAudit
    {
        private final JdbcTemplate jdbc;

        FailingAudit(final JdbcTemplate jdbc)
        {
            this.jdbc = jdbc;
        }

        @Transactional
        public void audit(final String id)
        {
            jdbc.update("INSERT INTO deposits (id) VALUES (?)", id);
            throw new IllegalStateException("audit failed for " + id);
        }
    }

    /** Deposits whose audit fails, its exception caught: their transaction can only roll back. */
    @XioService("transfers")
    public static class AuditedDeposits implements Deposits
    {
        private final AtomicInteger executions = new AtomicInteger();
        private final FailingAudit audit;

        AuditedDeposits(final FailingAudit audit)
        {
            this.audit = audit;
        }

        @Override
        @Transactional
        public String deposit(final String id)
        {
            executions.incrementAndGet();
            try
            {
                audit.audit(id);
            }
            catch (final IllegalStateException ignored)
            {
                // the transaction was marked rollback-only all the same
            }
            return id;
        }

        @Override
        public String depositThenFail(final String id)
        {
            throw new UnsupportedOperationException();
        }

        /** How often {@link #deposit} ran (read through the transactional proxy, which has no state). */
        public int executions()
        {
            return executions.get();
        }
    }

    /** The deposits whose methods name the second manager. */
    @Configuration(proxyBeanMethods = false)
    static class MethodsQualified
    {
        @Bean
        SecondDatabaseDeposits deposits(@Qualifier("secondDatabase") final DataSource secondDatabase)
        {
            return new SecondDatabaseDeposits(new JdbcTemplate(secondDatabase));
        }
    }

    /** Deposits whose class names the second manager with {@code @Qualifier}, their methods a bare @Transactional. */
    @XioService("transfers")
    @Qualifier("secondTransactions")
    public static class ClassQualifiedDeposits implements Deposits
    {
        private final JdbcTemplate second;

        ClassQualifiedDeposits(final JdbcTemplate second)
        {
            this.second = second;
        }

        @Override
        @Transactional
        public String deposit(final String id)
        {
            second.update("INSERT INTO deposits (id) VALUES (?)", id);
            return id;
        }

        @Override
        @Transactional
        public String depositThenFail(final String id)
        {
            second.update("INSERT INTO deposits (id) VALUES (?)", id);
            throw new IllegalStateException("failed after writing " + id);
        }
    }

    /** The deposits whose class names the second manager. */
    @Configuration(proxyBeanMethods = false)
    static class ClassQualified
    {
        @Bean
        ClassQualifiedDeposits deposits(@Qualifier("secondDatabase") final DataSource secondDatabase)
        {
            return new ClassQualifiedDeposits(new JdbcTemplate(secondDatabase));
        }
    }

    /** A checked refusal: by Spring's default rules its transaction commits. */
    public static class Declined extends Exception
    {
        private static final long serialVersionUID = 1L;

        Declined(final String message)
        {
            super(message);
        }
    }

    /** Refunds, which write a row and then decline. */
    public interface Refunds
    {
        @XioMethod(exactlyOnce = true)
        String refund(String id) throws Declined;
    }

    /** Writes a row, then throws a checked exception. */
    @XioService("transfers")
    public static class DecliningRefunds implements Refunds
    {
        private final JdbcTemplate jdbc;

        DecliningRefunds(final JdbcTemplate jdbc)
        {
            this.jdbc = jdbc;
        }

        @Override
        @Transactional
        public String refund(final String id) throws Declined
        {
            jdbc.update("INSERT INTO deposits (id) VALUES (?)", id);
            throw new Declined("declined " + id);
        }
    }

    /** Transaction management that rolls back for every exception, checked ones too. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(proxyTargetClass = true, rollbackOn = RollbackOn.ALL_EXCEPTIONS)
    static class RollBackOnAllExceptions
    {
        @Bean
        DecliningRefunds refunds(final JdbcTemplate jdbc)
        {
            jdbc.execute("CREATE TABLE deposits (id VARCHAR(64) NOT NULL)");
            return new DecliningRefunds(jdbc);
        }
    }

    /**
     * Spring's own interceptor runs around the method too, and marks the joined transaction rollback-only, so this
     * shows the outcome, not who decided it: {@link #theRulesOfTheContextsInterceptorOrSourceDecideWhenOnlyXioRunsThem}
     * does.
     */
    @Test
    void withRollbackOnAllExceptionsACheckedExceptionRollsBackTheWritesAndTheEntry()
    {
        server(RollBackOnAllExceptions.class).run(server ->
        {
            assertThat(server).hasNotFailed();
            final JdbcTemplate jdbc = server.getBean(JdbcTemplate.class);
            assertThatThrownBy(() -> callInJson(server, "refund(String)", "[\"r1\"]", key("refund-1")))
                .isInstanceOf(ExecutionException.class).hasMessageContaining("declined r1");
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM deposits", Integer.class))
                .as("rolled back, as rollbackOn = ALL_EXCEPTIONS says").isZero();
            assertThat(jdbc.queryForObject(COUNT_ENTRIES, Integer.class)).isZero();
        });
    }

    /** Writes a row, then throws a checked exception; no {@code @Transactional}, and no proxy of Spring's. */
    @XioService("transfers")
    public static class UnproxiedDecliningRefunds implements Refunds
    {
        private final JdbcTemplate jdbc;

        UnproxiedDecliningRefunds(final JdbcTemplate jdbc)
        {
            this.jdbc = jdbc;
        }

        @Override
        public String refund(final String id) throws Declined
        {
            jdbc.update("INSERT INTO deposits (id) VALUES (?)", id);
            throw new Declined("declined " + id);
        }
    }

    /** The refunds, with no transaction rules of the application's: a checked exception commits. */
    @Configuration(proxyBeanMethods = false)
    static class NoRules
    {
        @Bean
        UnproxiedDecliningRefunds refunds(final JdbcTemplate jdbc)
        {
            jdbc.execute("CREATE TABLE deposits (id VARCHAR(64) NOT NULL)");
            return new UnproxiedDecliningRefunds(jdbc);
        }
    }

    /** Rules that roll a refund back for any exception, which no annotation says: only a reader of them knows. */
    static TransactionAttributeSource refundsRollBackForAnyException()
    {
        final RuleBasedTransactionAttribute rollsBack = new RuleBasedTransactionAttribute(
            TransactionDefinition.PROPAGATION_REQUIRED, List.of(new RollbackRuleAttribute(Exception.class)));
        return (method, targetClass) -> method.getName().equals("refund") ? rollsBack : null;
    }

    /** The rules in the application's transaction interceptor, which no advisor applies to any bean. */
    @Configuration(proxyBeanMethods = false)
    @Import(NoRules.class)
    static class RulesOfAnInterceptor
    {
        @Bean
        TransactionInterceptor refundRules(final TransactionManager transactions)
        {
            return new TransactionInterceptor(transactions, refundsRollBackForAnyException());
        }
    }

    /** The rules as the context's only transaction attribute source, with no interceptor at all. */
    @Configuration(proxyBeanMethods = false)
    @Import(NoRules.class)
    static class RulesOfTheContextsSource
    {
        @Bean
        TransactionAttributeSource refundRules()
        {
            return refundsRollBackForAnyException();
        }
    }

    @Test
    void theRulesOfTheContextsInterceptorOrSourceDecideWhenOnlyXioRunsThem()
    {
        refund(NoRules.class, 1); // by default a checked exception commits, with its answer stored
        refund(RulesOfAnInterceptor.class, 0);
        refund(RulesOfTheContextsSource.class, 0);
    }

    /** A refund, which fails, in an application without transaction management: what it left committed. */
    private static void refund(final Class<?> application, final int committed)
    {
        serverWithoutTransactionManagement(application).run(server ->
        {
            assertThat(server).hasNotFailed();
            final JdbcTemplate jdbc = server.getBean(JdbcTemplate.class);
            assertThatThrownBy(() -> callInJson(server, "refund(String)", "[\"r1\"]", key("refund-1")))
                .isInstanceOf(ExecutionException.class).hasMessageContaining("declined r1");
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM deposits", Integer.class)).as(application.getName())
                .isEqualTo(committed);
            assertThat(jdbc.queryForObject(COUNT_ENTRIES, Integer.class)).isEqualTo(committed);
        });
    }

    /** One database, the deposits whose audit fails. */
    @Configuration(proxyBeanMethods = false)
    static class AuditFails
    {
        @Bean
        FailingAudit failingAudit(final JdbcTemplate jdbc)
        {
            jdbc.execute("CREATE TABLE deposits (id VARCHAR(64) NOT NULL)");
            return new FailingAudit(jdbc);
        }

        @Bean
        AuditedDeposits deposits(final FailingAudit audit)
        {
            return new AuditedDeposits(audit);
        }
    }

    @Test
    void aMethodWhoseTransactionANestedTransactionalMarkedRollbackOnlyFailsOnceAndRollsBackNotUnsettled()
    {
        server(AuditFails.class).run(server ->
        {
            assertThat(server).hasNotFailed();
            final JdbcTemplate jdbc = server.getBean(JdbcTemplate.class);
            assertThatThrownBy(() -> callInJson(server, "deposit(String)", "[\"a1\"]", key("audit-1")))
                .isInstanceOf(ExecutionException.class)
                .as("a final error, not back-pressure: the outcome is known")
                .cause().isInstanceOf(RemoteException.class).matches(remote -> !((RemoteException)remote)
                    .isBackPressure());
            assertThat(server.getBean(AuditedDeposits.class).executions()).isEqualTo(1);
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM deposits", Integer.class)).isZero();
            assertThat(jdbc.queryForObject(COUNT_ENTRIES, Integer.class)).isZero();
        });
    }

    /** Deposits on the one database, counted. */
    @XioService("transfers")
    public static class CountedDeposits implements Deposits
    {
        private final JdbcTemplate jdbc;
        private final AtomicInteger executions = new AtomicInteger();

        CountedDeposits(final JdbcTemplate jdbc)
        {
            this.jdbc = jdbc;
        }

        @Override
        public String deposit(final String id)
        {
            executions.incrementAndGet();
            jdbc.update("INSERT INTO deposits (id) VALUES (?)", id);
            return id;
        }

        @Override
        public String depositThenFail(final String id)
        {
            throw new UnsupportedOperationException();
        }
    }

    /** One database, and a server interceptor that runs every call in a transaction of its own opening. */
    @Configuration(proxyBeanMethods = false)
    static class TransactionAroundTheCall
    {
        @Bean
        CountedDeposits deposits(final JdbcTemplate jdbc)
        {
            jdbc.execute("CREATE TABLE deposits (id VARCHAR(64) NOT NULL)");
            return new CountedDeposits(jdbc);
        }

        @Bean
        XioServerInterceptor transactionAround(final PlatformTransactionManager transactions)
        {
            return (call, chain) ->
            {
                final TransactionStatus status = transactions.getTransaction(TransactionDefinition.withDefaults());
                final Object result;
                try
                {
                    result = chain.proceed();
                }
                catch (final Throwable ex)
                {
                    transactions.rollback(status);
                    throw ex;
                }
                transactions.commit(status);
                return result;
            };
        }
    }

    @Test
    void aTransactionOpenedAroundTheCallIsRefusedBeforeTheMethodRunsRatherThanJoined()
    {
        server(TransactionAroundTheCall.class).withPropertyValues("xio.server.error.include-message=always")
            .run(server ->
            {
                assertThat(server).hasNotFailed();
                final JdbcTemplate jdbc = server.getBean(JdbcTemplate.class);
                assertThatThrownBy(() -> callInJson(server, "deposit(String)", "[\"o1\"]", key("outer-1")))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RemoteException.class)
                    .hasMessageContaining("would join one already open on this thread")
                    .matches(remote -> !((RemoteException)remote).isBackPressure(), "an answer, not back-pressure");
                assertThat(server.getBean(CountedDeposits.class).executions).hasValue(0);
                assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM deposits", Integer.class)).isZero();
                assertThat(jdbc.queryForObject(COUNT_ENTRIES, Integer.class)).isZero();
            });
    }

    @Test
    void aMethodQualifiedToTheSecondManagerRecordsItsKeyInTheSecondDatabaseInItsTransaction()
    {
        inTheSecondDatabase(server(TwoDatabases.class), MethodsQualified.class);
    }

    @Test
    void aClassQualifiedToTheSecondManagerRecordsItsKeyInTheSecondDatabaseAsSpringWould()
    {
        inTheSecondDatabase(server(TwoDatabases.class), ClassQualified.class);
    }

    @Test
    void withoutTransactionManagementTheManagerIsChosenBySpringsRulesAllTheSame()
    {
        inTheSecondDatabase(serverWithoutTransactionManagement(TwoDatabases.class), ClassQualified.class);
        inTheSecondDatabase(serverWithoutTransactionManagement(TwoDatabases.class), MethodsQualified.class);
    }

    /** Transactions of the one database that note the timeout each one began with. */
    static final class TimeoutsNoted extends DataSourceTransactionManager
    {
        private static final long serialVersionUID = 1L;
        private final transient List<Integer> timeouts = new CopyOnWriteArrayList<>();

        TimeoutsNoted(final DataSource dataSource)
        {
            super(dataSource);
        }

        @Override
        protected void doBegin(final Object transaction, final TransactionDefinition definition)
        {
            timeouts.add(definition.getTimeout());
            super.doBegin(transaction, definition);
        }
    }

    /** Deposits whose transaction's timeout is a property's. */
    @XioService("transfers")
    public static class TimedDeposits implements Deposits
    {
        private final JdbcTemplate jdbc;

        TimedDeposits(final JdbcTemplate jdbc)
        {
            this.jdbc = jdbc;
        }

        @Override
        @Transactional(timeoutString = "${deposits.timeout}")
        public String deposit(final String id)
        {
            jdbc.update("INSERT INTO deposits (id) VALUES (?)", id);
            return id;
        }

        @Override
        public String depositThenFail(final String id)
        {
            throw new UnsupportedOperationException();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TimeoutOfAProperty
    {
        @Bean
        TimeoutsNoted transactionManager(final DataSource dataSource)
        {
            return new TimeoutsNoted(dataSource);
        }

        @Bean
        TimedDeposits deposits(final JdbcTemplate jdbc)
        {
            jdbc.execute("CREATE TABLE deposits (id VARCHAR(64) NOT NULL)");
            return new TimedDeposits(jdbc);
        }
    }

    @Test
    void withoutTransactionManagementAPlaceholderInTimeoutStringIsResolvedAsSpringResolvesIt()
    {
        serverWithoutTransactionManagement(TimeoutOfAProperty.class).withPropertyValues("deposits.timeout=7")
            .run(server ->
            {
                assertThat(server).hasNotFailed();
                assertThat(callInJson(server, "deposit(String)", "[\"t1\"]", key("timed-1"))).isEqualTo("\"t1\"");
                assertThat(server.getBean(TimeoutsNoted.class).timeouts).contains(7);
            });
    }

    @Test
    void withNoPrimaryDatabaseTheLedgersTableIsCreatedWhereTheMethodsManagerWrites()
    {
        inTheSecondDatabase(server(TwoDatabasesNonePrimary.class), MethodsQualified.class);
    }

    @Test
    void theLedgerInTheSecondDatabaseIsCleanedWithNoPrimaryDatabaseToo()
    {
        for (final Class<?> databases : List.of(TwoDatabases.class, TwoDatabasesNonePrimary.class))
        {
            server(databases).withUserConfiguration(MethodsQualified.class)
                .withPropertyValues("xio.ledger.time-to-live=1ms", "xio.ledger.cleanup.interval=50ms")
                .run(server ->
                {
                    assertThat(server).hasNotFailed();
                    final JdbcTemplate second = new JdbcTemplate(server.getBean("secondDatabase", DataSource.class));
                    assertThat(callInJson(server, "deposit(String)", "[\"c1\"]", key("clean-1")))
                        .isEqualTo("\"c1\"");
                    assertThat(second.queryForObject("SELECT COUNT(*) FROM deposits", Integer.class))
                        .as("committed, with its entry").isEqualTo(1);
                    assertThat(server.getBean(XioLedgerCleanerLifecycle.class).cleaners()).hasSize(1);
                    Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> second.queryForObject(COUNT_ENTRIES, Integer.class) == 0);
                });
        }
    }

    @Test
    void theExecutionBeanWritesInTheDatabaseOfThePrimaryManagerNotThePrimaryDatabase() throws Exception
    {
        server(PrimaryManagerOfTheOtherDatabase.class).run(server ->
        {
            assertThat(server).hasNotFailed();
            final DataSource first = server.getBean("firstDatabase", DataSource.class);
            final DataSource second = server.getBean("secondDatabase", DataSource.class);
            final ExecutionOutcome outcome = server.getBean(ExactlyOnceExecution.class).execute("own-1", true,
                Duration.ofSeconds(5), connection ->
                {
                    try (var insert = connection.prepareStatement("INSERT INTO deposits (id) VALUES ('e1')"))
                    {
                        insert.executeUpdate();
                    }
                    return new byte[] {1};
                });
            assertThat(outcome.replayed()).isFalse();
            assertThat(new JdbcTemplate(second).queryForObject(COUNT_ENTRIES, Integer.class))
                .as("the table created there, the entry written with the work").isEqualTo(1);
            assertThat(hasLedger(first)).as("nothing writes a ledger in the primary database").isFalse();
        });
    }

    private static void inTheSecondDatabase(final ApplicationContextRunner runner, final Class<?> deposits)
    {
        runner.withUserConfiguration(deposits).run(server ->
        {
            assertThat(server).hasNotFailed();
            final DataSource first = server.getBean("firstDatabase", DataSource.class);
            final JdbcTemplate second = new JdbcTemplate(server.getBean("secondDatabase", DataSource.class));
            assertThat(server.getBean(XioLedgerSchemaInitializer.class)
                .created(server.getBean("secondDatabase", DataSource.class))).isTrue();

            assertThat(callInJson(server, "deposit(String)", "[\"d1\"]", key("deposit-1"))).isEqualTo("\"d1\"");
            assertThat(second.queryForObject("SELECT COUNT(*) FROM deposits", Integer.class)).isEqualTo(1);
            assertThat(second.queryForObject(COUNT_ENTRIES, Integer.class)).isEqualTo(1);
            assertThat(hasLedger(first)).as("nothing writes a ledger in the first database").isFalse();

            assertThatThrownBy(() -> callInJson(server, "depositThenFail(String)", "[\"d2\"]", key("deposit-2")))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RemoteException.class)
                .matches(remote -> !((RemoteException)remote).isBackPressure(), "an answer, not back-pressure");
            assertThat(second.queryForObject("SELECT COUNT(*) FROM deposits WHERE id = 'd2'", Integer.class))
                .as("rolled back with the entry: one transaction").isZero();
            assertThat(second.queryForObject(COUNT_ENTRIES, Integer.class)).isEqualTo(1);
        });
    }

    /** Whether {@code database} has the ledger's table. */
    private static boolean hasLedger(final DataSource database)
    {
        return new JdbcTemplate(database).queryForObject("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES " +
            "WHERE LOWER(TABLE_NAME) = 'xio_execution_ledger'", Integer.class) > 0;
    }

    private static Metadata key(final String key)
    {
        return new Metadata().add(IdempotencyKeys.METADATA_KEY, key);
    }
}
