package io.xio.spring.exactlyonce;

import io.xio.ledger.ExactlyOnceExecution;
import io.xio.ledger.ExecutionLedger;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.service.ExactlyOnceCalls;
import io.xio.spring.service.ExactlyOnceSetupException;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionManager;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.DefaultTransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionInterceptor;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.util.ReflectionUtils;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Runs exactly-once methods in the application's own transactions: for each, at start-up, the transaction manager
 * Spring's {@link TransactionInterceptor} would give its {@code @Transactional} (without one in the context, by the
 * same rules: the manager its annotation names, a {@code @Qualifier} on its class, else the only or primary
 * {@link PlatformTransactionManager}), read through the context's {@link TransactionAttributeSource}, the
 * {@link DataSource} that manager binds its connection to, the transaction as its {@code @Transactional} sets it
 * (isolation, timeout) but always REQUIRED, so the method's own annotation joins it, and its rollback rules, which
 * decide whether an error rolls everything back or is stored as the answer. A method whose
 * {@code @Transactional} would not join that transaction (REQUIRES_NEW, NOT_SUPPORTED, NEVER), is read-only, or has
 * no transaction manager or data source fails start-up naming it ({@link ExactlyOnceSetupException}). Each database
 * a method's ledger writes in is told to the {@link DatabaseListener}s before the method's service is exported (to
 * create the ledger's table there, and clean it). Thread-safe; {@link #forService} is called as the services are
 * exported.
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

    /**
     * Told each database the ledger of an exactly-once method writes in: the transaction manager the method resolved
     * and the {@link DataSource} that manager binds its connection to, before the method's service is exported (so
     * before it serves a call). Told once per method, so one database may be told several times: act once per
     * {@code DataSource}. What it throws fails start-up naming the method. Called on the thread that exports the
     * services, or that makes another user of the ledger (an {@link ExactlyOnceExecution} bean).
     */
    @FunctionalInterface
    public interface DatabaseListener
    {
        void using(PlatformTransactionManager manager, DataSource dataSource) throws Exception;
    }

    private final ExecutionLedger ledger;
    private final ListableBeanFactory beans;
    private final Settings settings;
    private final List<DatabaseListener> listeners;
    /**
     * Spring's choice of a {@code @Transactional} method's manager, which xio's must be (protected there, so invoked
     * by reflection: {@link ExactlyOnceRuntimeHints} keeps it in a native image).
     */
    private static final @Nullable Method DETERMINE_MANAGER = ReflectionUtils.findMethod(
        TransactionAspectSupport.class, "determineTransactionManager", TransactionAttribute.class, Class.class);

    /** The method of Spring's that this invokes by reflection, or null when this Spring version has none. */
    static @Nullable Method determineTransactionManager()
    {
        return DETERMINE_MANAGER;
    }

    /** Calls through {@code ledger}, with the transaction managers and data sources of {@code beans}. */
    public TransactionalExactlyOnceCalls(final ExecutionLedger ledger, final ListableBeanFactory beans,
        final Settings settings)
    {
        this(ledger, beans, settings, List.of());
    }

    /**
     * Calls through {@code ledger}, with the transaction managers and data sources of {@code beans}; each database
     * their ledger writes in told to {@code listeners}, in order.
     */
    public TransactionalExactlyOnceCalls(final ExecutionLedger ledger, final ListableBeanFactory beans,
        final Settings settings, final List<DatabaseListener> listeners)
    {
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.beans = Objects.requireNonNull(beans, "beans");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public ExactlyOnceCalls forService(final ExactlyOnceCalls.ExportedService service)
    {
        final Class<?> targetClass = AopUtils.getTargetClass(service.target());
        final TransactionInterceptor own = beans.getBeanProvider(TransactionInterceptor.class).getIfUnique();
        final TransactionAttributeSource attributes = attributes(own);
        final TransactionInterceptor interceptor = own != null ? own : interceptor(attributes);
        final Map<Method, ExactlyOnceExecution> executions = new HashMap<>();
        for (final ServiceMethod method : service.methods())
        {
            final Method invoked = method.method();
            final TransactionAttribute attribute = attributes.getTransactionAttribute(invoked, targetClass);
            check(service.resource(), invoked, attribute);
            final PlatformTransactionManager manager = manager(service.resource(), invoked, attribute, interceptor,
                targetClass);
            final DataSource dataSource = dataSource(service.resource(), invoked, manager);
            tell(service.resource(), invoked, manager, dataSource);
            executions.put(invoked, ExactlyOnceExecution.builder(ledger,
                    new SpringTransactions(manager, dataSource, definition(invoked, attribute)))
                .rollbackOn(error -> error instanceof LedgerCalls.RollbackOnly ||
                    (attribute != null ? attribute.rollbackOn(error) : ExactlyOnceExecution.uncheckedRollsBack(error)))
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

    /**
     * The attributes Spring's own {@code @Transactional} reads: its interceptor's, else the context's only source,
     * else one of xio's (an application without transaction management set up), which resolves placeholders
     * ({@code timeoutString}, a qualifier's) as the context's own would.
     */
    private TransactionAttributeSource attributes(final @Nullable TransactionInterceptor interceptor)
    {
        final TransactionAttributeSource own = interceptor != null ? interceptor.getTransactionAttributeSource() : null;
        if (own != null)
        {
            return own;
        }
        final TransactionAttributeSource source = beans.getBeanProvider(TransactionAttributeSource.class)
            .getIfUnique();
        if (source != null)
        {
            return source;
        }
        final AnnotationTransactionAttributeSource annotations = new AnnotationTransactionAttributeSource();
        final ConfigurableBeanFactory configurable = configurable();
        if (configurable != null)
        {
            annotations.setEmbeddedValueResolver(new EmbeddedValueResolver(configurable));
        }
        return annotations;
    }

    /** The factory whose placeholders and qualifiers the application's beans see, if it has one. */
    private @Nullable ConfigurableBeanFactory configurable()
    {
        if (beans instanceof ConfigurableBeanFactory factory)
        {
            return factory;
        }
        return beans instanceof ConfigurableApplicationContext context ? context.getBeanFactory() : null;
    }

    /**
     * For an application without transaction management set up: an interceptor of xio's, never applied to a bean,
     * that chooses each method's manager by Spring's own rules, as the application's interceptor would.
     */
    private TransactionInterceptor interceptor(final TransactionAttributeSource attributes)
    {
        final TransactionInterceptor interceptor = new TransactionInterceptor();
        interceptor.setTransactionAttributeSource(attributes);
        interceptor.setBeanFactory(beans);
        return interceptor;
    }

    /**
     * The manager {@code interceptor} gives the method, as it would for its {@code @Transactional} (its qualifier, a
     * {@code @Qualifier} on the class, the interceptor's own manager, the only or primary one), so that the method's
     * own annotation joins the ledger's transaction.
     */
    private PlatformTransactionManager manager(final String service, final Method method,
        final @Nullable TransactionAttribute attribute, final TransactionInterceptor interceptor,
        final Class<?> targetClass)
    {
        if (DETERMINE_MANAGER == null)
        {
            throw new ExactlyOnceSetupException(service, method, "this Spring version has no " +
                "TransactionAspectSupport.determineTransactionManager(TransactionAttribute, Class), so xio cannot " +
                "choose the transaction manager its @Transactional uses", "Use Spring Framework 6.2 or later.");
        }
        final Object manager;
        try
        {
            ReflectionUtils.makeAccessible(DETERMINE_MANAGER);
            manager = DETERMINE_MANAGER.invoke(interceptor,
                attribute != null ? attribute : new DefaultTransactionAttribute(), targetClass);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw noManager(service, method, ex.getCause() != null ? ex.getCause() : ex);
        }
        if (manager instanceof PlatformTransactionManager platform)
        {
            return platform;
        }
        throw new ExactlyOnceSetupException(service, method, "its transaction manager " + manager + " is not a " +
            "PlatformTransactionManager (a reactive one cannot share its connection with the ledger)",
            "Run it under a PlatformTransactionManager.");
    }

    /** Why Spring finds no manager for the method: none at all, several and none primary, or a name it has not. */
    private ExactlyOnceSetupException noManager(final String service, final Method method, final Throwable cause)
    {
        if (cause instanceof NoUniqueBeanDefinitionException several)
        {
            return new ExactlyOnceSetupException(service, method, "the application has " +
                several.getNumberOfBeansFound() + " transaction managers " + several.getBeanNamesFound() +
                " and none is primary", "Name one with @Transactional(\"...\") on the method, or mark one @Primary.");
        }
        if (cause instanceof NoSuchBeanDefinitionException && beans.getBeanNamesForType(TransactionManager.class,
            true, false).length == 0)
        {
            return new ExactlyOnceSetupException(service, method, "the application has no transaction manager " +
                "(PlatformTransactionManager), which runs its transaction", ADD_JDBC);
        }
        return new ExactlyOnceSetupException(service, method, "Spring finds no transaction manager for it (" +
            cause.getMessage() + ")", "Name one the application defines, with @Transactional(\"...\") on the method " +
            "or @Qualifier on its class, or mark one @Primary.");
    }

    /** Tells the listeners the database {@code method}'s ledger writes in; what one throws names the method. */
    private void tell(final String service, final Method method, final PlatformTransactionManager manager,
        final DataSource dataSource)
    {
        for (final DatabaseListener listener : listeners)
        {
            try
            {
                listener.using(manager, dataSource);
            }
            catch (final Exception ex)
            {
                final ExactlyOnceSetupException failure = new ExactlyOnceSetupException(service, method, "its " +
                    "ledger's database (" + dataSource + ", of its transaction manager) could not be prepared: " +
                    ex.getMessage(), "Check that database, or create the ledger's table there yourself " +
                    "(xio.ledger.initialize-schema=never and the scripts xio-ledger ships).");
                failure.initCause(ex);
                throw failure;
            }
        }
    }

    /**
     * The data source {@code manager} binds its transaction's connection to: a
     * {@link DataSourceTransactionManager}'s, or what a {@code getDataSource()} of it gives
     * ({@code JpaTransactionManager}'s); null when it has none (a {@code JtaTransactionManager}). Never a guess,
     * since a connection of another data source would write the ledger outside the transaction.
     */
    public static @Nullable DataSource dataSourceOf(final PlatformTransactionManager manager)
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
        final Method getter = ReflectionUtils.findMethod(manager.getClass(), "getDataSource");
        if (getter != null && DataSource.class.isAssignableFrom(getter.getReturnType()) &&
            ReflectionUtils.invokeMethod(getter, manager) instanceof DataSource dataSource)
        {
            return dataSource;
        }
        return null;
    }

    /** {@link #dataSourceOf} {@code manager}, the method's: one it has none for fails start-up naming it. */
    private static DataSource dataSource(final String service, final Method method,
        final PlatformTransactionManager manager)
    {
        final DataSource dataSource = dataSourceOf(manager);
        if (dataSource != null)
        {
            return dataSource;
        }
        throw new ExactlyOnceSetupException(service, method, "its transaction manager (" +
            manager.getClass().getName() + ") runs on no DataSource xio can find, so the ledger could not write in " +
            "its transaction (a JtaTransactionManager, or a JpaTransactionManager without one, say)",
            "Give the manager its DataSource (JpaTransactionManager.setDataSource), or run the method under a " +
            "DataSourceTransactionManager.");
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
