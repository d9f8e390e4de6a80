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
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;

/**
 * Auto-configuration of exactly-once methods ({@code @XioMethod(exactlyOnce = true)}) when the application has
 * {@code io.xio:xio-ledger} and Spring's JDBC support ({@code spring-boot-starter-jdbc}): the execution ledger
 * ({@code xio.ledger.*}) and what runs the exported exactly-once methods through it in the application's transactions
 * ({@link TransactionalExactlyOnceCalls}, which fails start-up naming a method it has no transaction manager or data
 * source for). In each database the ledger writes in (the {@code DataSource} of each method's transaction manager,
 * whichever it is, primary or not): the ledger's table, created before the method's service is exported as
 * {@code xio.ledger.initialize-schema} says, and its cleaner, running while the context does. With one transaction
 * manager (or a primary one), also an {@link ExactlyOnceExecution} in its transactions on the {@code DataSource} it
 * binds, for the application's own use (engine handlers), made when first asked for. Every bean backs off when the
 * application defines its own.
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
        final XioProperties properties, final ObjectProvider<TransactionalExactlyOnceCalls.DatabaseListener> databases)
    {
        final XioProperties.Ledger settings = properties.getLedger();
        return new TransactionalExactlyOnceCalls(ledger, beans,
            new TransactionalExactlyOnceCalls.Settings(settings.getMaxClaimWait(), settings.isRunWithoutKey()),
            databases.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    XioLedgerSchemaInitializer xioLedgerSchemaInitializer(final XioProperties properties)
    {
        return new XioLedgerSchemaInitializer(properties.getLedger());
    }

    @Bean
    @ConditionalOnMissingBean
    XioLedgerCleanerLifecycle xioLedgerCleaner(final ExecutionLedger ledger, final XioProperties properties)
    {
        return new XioLedgerCleanerLifecycle(ledger, properties.getLedger().getCleanup());
    }

    /**
     * The ledger in the transactions of the only or primary manager, on the {@code DataSource} that manager binds
     * (never another one, whose connection would write outside the transaction); its database told to the
     * listeners, which create its table and clean it. Lazy: an application whose manager binds no {@code DataSource}
     * (JTA) fails only if it asks for this bean.
     */
    @Bean
    @Lazy
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(PlatformTransactionManager.class)
    ExactlyOnceExecution xioExactlyOnceExecution(final ExecutionLedger ledger,
        final PlatformTransactionManager transactionManager,
        final ObjectProvider<TransactionalExactlyOnceCalls.DatabaseListener> databases) throws Exception
    {
        final DataSource dataSource = TransactionalExactlyOnceCalls.dataSourceOf(transactionManager);
        if (dataSource == null)
        {
            throw new IllegalStateException("the transaction manager " + transactionManager + " binds no " +
                "DataSource xio can find (a JtaTransactionManager, or a JpaTransactionManager without one), so an " +
                "ExactlyOnceExecution in its transactions could not write its ledger there; define your own bean");
        }
        for (final TransactionalExactlyOnceCalls.DatabaseListener listener : databases.orderedStream().toList())
        {
            listener.using(transactionManager, dataSource);
        }
        return ExactlyOnceExecution.of(ledger, new SpringTransactions(transactionManager, dataSource));
    }
}
