package io.xio.spring.autoconfigure.ledger;

import io.xio.ledger.ExactlyOnceExecution;
import io.xio.ledger.ExecutionLedger;
import io.xio.ledger.JdbcExecutionLedger;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.exactlyonce.SpringTransactions;
import io.xio.spring.exactlyonce.TransactionalExactlyOnceCalls;
import io.xio.spring.service.ExactlyOnceCalls;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;

/**
 * Auto-configuration of exactly-once methods ({@code @XioMethod(exactlyOnce = true)}) when the application has
 * {@code io.xio:xio-ledger} and Spring's JDBC support ({@code spring-boot-starter-jdbc}): the execution ledger
 * ({@code xio.ledger.*}) and what runs the exported exactly-once methods through it in the application's transactions
 * ({@link TransactionalExactlyOnceCalls}, which fails start-up naming a method it has no transaction manager or data
 * source for). With a data source and a transaction manager, also: the ledger's table, created at start-up as
 * {@code xio.ledger.initialize-schema} says; its cleaner, running while the context does; and an
 * {@link ExactlyOnceExecution} in their transactions, for the application's own use (engine handlers). Every bean
 * backs off when the application defines its own.
 */
@AutoConfiguration(after = XioAutoConfiguration.class, afterName = {
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
    "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnClass(name = {"io.xio.ledger.ExactlyOnceExecution",
    "org.springframework.transaction.PlatformTransactionManager",
    "org.springframework.jdbc.datasource.DataSourceUtils", "org.springframework.boot.jdbc.EmbeddedDatabaseConnection"})
@EnableConfigurationProperties(XioProperties.class)
public final class XioLedgerAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean(ExecutionLedger.class)
    JdbcExecutionLedger xioExecutionLedger(final XioProperties properties)
    {
        final XioProperties.Ledger ledger = properties.getLedger();
        return JdbcExecutionLedger.builder().table(ledger.getTableName()).timeToLive(ledger.getTimeToLive()).build();
    }

    @Bean
    @ConditionalOnMissingBean(ExactlyOnceCalls.Factory.class)
    TransactionalExactlyOnceCalls xioExactlyOnceCalls(final ExecutionLedger ledger, final ListableBeanFactory beans,
        final XioProperties properties)
    {
        final XioProperties.Ledger settings = properties.getLedger();
        return new TransactionalExactlyOnceCalls(ledger, beans,
            new TransactionalExactlyOnceCalls.Settings(settings.getMaxClaimWait(), settings.isRunWithoutKey()));
    }

    /** What needs the database itself: its transactions, the table, the cleaner. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnSingleCandidate(DataSource.class)
    static class WithDatabase
    {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnSingleCandidate(PlatformTransactionManager.class)
        ExactlyOnceExecution xioExactlyOnceExecution(final ExecutionLedger ledger,
            final PlatformTransactionManager transactionManager, final DataSource dataSource)
        {
            return ExactlyOnceExecution.of(ledger, new SpringTransactions(transactionManager, dataSource));
        }

        @Bean
        @ConditionalOnMissingBean
        XioLedgerSchemaInitializer xioLedgerSchemaInitializer(final DataSource dataSource,
            final XioProperties properties)
        {
            return new XioLedgerSchemaInitializer(dataSource, properties.getLedger());
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnSingleCandidate(PlatformTransactionManager.class)
        XioLedgerCleanerLifecycle xioLedgerCleaner(final ExecutionLedger ledger,
            final PlatformTransactionManager transactionManager, final DataSource dataSource,
            final XioProperties properties)
        {
            return new XioLedgerCleanerLifecycle(ledger, new SpringTransactions(transactionManager, dataSource),
                properties.getLedger().getCleanup());
        }
    }
}
