package io.xio.spring.exactlyonce;

import io.xio.ledger.ExactlyOnceExecution;
import io.xio.ledger.ExecutionLedger;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.service.ExactlyOnceCalls;
import io.xio.spring.service.ExactlyOnceSetupException;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.util.StringUtils;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Runs exactly-once methods in the application's own transactions: for each, at start-up, the transaction manager its
 * {@code @Transactional} names (else the application's only or primary {@link PlatformTransactionManager}), the
 * {@link DataSource} that manager runs on (else the only or primary one), the transaction as its
 * {@code @Transactional} sets it (isolation, timeout) but always REQUIRED, so the method's own annotation joins it, and
 * its rollback rules, which decide whether an error rolls everything back or is stored as the answer. A method whose
 * {@code @Transactional} would not join that transaction (REQUIRES_NEW, NOT_SUPPORTED, NEVER), is read-only, or has
 * no transaction manager or data source fails start-up naming it ({@link ExactlyOnceSetupException}). Thread-safe;
 * {@link #forService} is called as the services are exported.
 */
public final class TransactionalExactlyOnceCalls implements ExactlyOnceCalls.Factory
{
    private static final String ADD_JDBC = "Add spring-boot-starter-jdbc (or define the bean yourself).";

    /**
     * How calls use the ledger.
     *
     * @param maxClaimWait the longest a call waits for another attempt of its key that runs, whatever its time left
     * @param runWithoutKey whether a call that carries no idempotency key runs (in a transaction, without the
     *                      ledger: at least once, as any call) instead of being refused
     */
    public record Settings(Duration maxClaimWait, boolean runWithoutKey)
    {
        /** 30 s at most, and a call without a key refused. */
        public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(30), false);

        public Settings
        {
            Objects.requireNonNull(maxClaimWait, "maxClaimWait");
            if (maxClaimWait.isNegative() || maxClaimWait.isZero())
            {
                throw new IllegalArgumentException("a claim's wait is positive, not " + maxClaimWait);
            }
        }
    }

    private final ExecutionLedger ledger;
    private final ListableBeanFactory beans;
    private final Settings settings;
    private final AnnotationTransactionAttributeSource attributes = new AnnotationTransactionAttributeSource();

    /** Calls through {@code ledger}, with the transaction managers and data sources of {@code beans}. */
    public TransactionalExactlyOnceCalls(final ExecutionLedger ledger, final ListableBeanFactory beans,
        final Settings settings)
    {
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.beans = Objects.requireNonNull(beans, "beans");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    @Override
    public ExactlyOnceCalls forService(final ExactlyOnceCalls.ExportedService service)
    {
        final Class<?> targetClass = AopUtils.getTargetClass(service.target());
        final Map<Method, ExactlyOnceExecution> executions = new HashMap<>();
        for (final ServiceMethod method : service.methods())
        {
            final Method invoked = method.method();
            final TransactionAttribute attribute = attributes.getTransactionAttribute(invoked, targetClass);
            check(service.resource(), invoked, attribute);
            final PlatformTransactionManager manager = manager(service.resource(), invoked, attribute);
            final DataSource dataSource = dataSource(service.resource(), invoked, manager);
            executions.put(invoked, ExactlyOnceExecution.builder(ledger,
                    new SpringTransactions(manager, dataSource, definition(invoked, attribute)))
                .rollbackOn(attribute != null ? attribute::rollbackOn : ExactlyOnceExecution::uncheckedRollsBack)
                .errorAnswer(error -> StoredAnswers.error(service.handlers().answer(error, invoked)))
                .build());
        }
        return new LedgerCalls(executions, service.codec(), settings);
    }

    /** Refuses settings that would keep the method's writes out of the transaction that records its answer. */
    private static void check(final String service, final Method method, final @Nullable TransactionAttribute attribute)
    {
        if (attribute == null)
        {
            return;
        }
        final String propagation = switch (attribute.getPropagationBehavior())
        {
            case TransactionDefinition.PROPAGATION_REQUIRES_NEW -> "REQUIRES_NEW";
            case TransactionDefinition.PROPAGATION_NOT_SUPPORTED -> "NOT_SUPPORTED";
            case TransactionDefinition.PROPAGATION_NEVER -> "NEVER";
            default -> null;
        };
        if (propagation != null)
        {
            throw new ExactlyOnceSetupException(service, method, "its @Transactional(propagation = " + propagation +
                ") would run it outside the transaction that records its idempotency key and answer, so its " +
                "writes could commit without them", "Use REQUIRED (the default), or no @Transactional on it.");
        }
        if (attribute.isReadOnly())
        {
            throw new ExactlyOnceSetupException(service, method, "its @Transactional(readOnly = true) leaves no room " +
                "for the answer the ledger writes", "Drop readOnly: a method that writes nothing needs no ledger.");
        }
    }

    /** The manager the method's {@code @Transactional} names, else the only or primary one. */
    private PlatformTransactionManager manager(final String service, final Method method,
        final @Nullable TransactionAttribute attribute)
    {
        final String qualifier = attribute != null ? attribute.getQualifier() : null;
        if (StringUtils.hasText(qualifier))
        {
            try
            {
                return BeanFactoryAnnotationUtils.qualifiedBeanOfType(beans, PlatformTransactionManager.class,
                    qualifier);
            }
            catch (final BeansException ex)
            {
                throw new ExactlyOnceSetupException(service, method, "its @Transactional names the transaction " +
                    "manager '" + qualifier + "', which is not a PlatformTransactionManager bean (" + ex.getMessage() +
                    ")", "Name one the application defines.");
            }
        }
        final PlatformTransactionManager manager = beans.getBeanProvider(PlatformTransactionManager.class)
            .getIfUnique();
        if (manager == null)
        {
            final String[] names = beans.getBeanNamesForType(PlatformTransactionManager.class);
            throw names.length == 0
                ? new ExactlyOnceSetupException(service, method, "the application has no transaction manager " +
                    "(PlatformTransactionManager), which runs its transaction", ADD_JDBC)
                : new ExactlyOnceSetupException(service, method, "the application has " + names.length +
                    " transaction managers " + java.util.Arrays.toString(names) + " and none is primary",
                    "Name one with @Transactional(\"...\") on the method, or mark one @Primary.");
        }
        return manager;
    }

    /** The data source {@code manager} runs on, else the only or primary one. */
    private DataSource dataSource(final String service, final Method method, final PlatformTransactionManager manager)
    {
        if (manager instanceof DataSourceTransactionManager jdbc && jdbc.getDataSource() != null)
        {
            return jdbc.getDataSource();
        }
        if (manager instanceof ResourceTransactionManager resources &&
            resources.getResourceFactory() instanceof DataSource dataSource)
        {
            return dataSource;
        }
        final DataSource dataSource = beans.getBeanProvider(DataSource.class).getIfUnique();
        if (dataSource == null)
        {
            throw new ExactlyOnceSetupException(service, method, "the application has no DataSource (or several " +
                "and none primary) for the ledger to share the transaction's connection with", ADD_JDBC);
        }
        return dataSource;
    }

    /** The method's transaction as its {@code @Transactional} sets it, but REQUIRED: the one the ledger writes in. */
    private static TransactionDefinition definition(final Method method,
        final @Nullable TransactionAttribute attribute)
    {
        final DefaultTransactionDefinition definition = new DefaultTransactionDefinition(
            TransactionDefinition.PROPAGATION_REQUIRED);
        definition.setName(method.getDeclaringClass().getName() + "." + method.getName() + " (exactly once)");
        if (attribute != null)
        {
            definition.setIsolationLevel(attribute.getIsolationLevel());
            definition.setTimeout(attribute.getTimeout());
        }
        return definition;
    }

    @Override
    public String toString()
    {
        return "exactly-once calls through " + ledger;
    }
}
