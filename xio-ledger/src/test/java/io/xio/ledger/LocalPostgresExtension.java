package io.xio.ledger;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.sql.SQLException;

/**
 * Gives a test a {@link LocalPostgres} parameter (a constructor's, a test method's, a {@code @BeforeAll} method's):
 * {@code @ExtendWith(LocalPostgresExtension.class)}. One server for the whole run, durability
 * {@link LocalPostgres.Durability#OFF}, started on first use and closed when the run ends. Where the machine lacks
 * PostgreSQL the test is skipped, naming what is missing; it fails instead where {@value LocalPostgres#REQUIRED} is
 * {@code true}. Called by JUnit's threads; the server it gives is thread-safe.
 */
public final class LocalPostgresExtension implements ExecutionCondition, ParameterResolver
{
    private static final ExtensionContext.Namespace NAMESPACE =
        ExtensionContext.Namespace.create(LocalPostgresExtension.class);

    /**
     * Skips a class (or a test) that asks for a server where none can be had, before its {@code @BeforeAll} methods
     * ask: an assumption that fails while a parameter is resolved is an error, not a skip.
     */
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(final ExtensionContext context)
    {
        final String lack = LocalPostgres.skipReason();
        return lack == null ? ConditionEvaluationResult.enabled("PostgreSQL binaries found") :
            ConditionEvaluationResult.disabled("PostgreSQL tests skipped: " + lack);
    }

    @Override
    public boolean supportsParameter(final ParameterContext parameter, final ExtensionContext context)
    {
        return parameter.getParameter().getType() == LocalPostgres.class;
    }

    @Override
    public Object resolveParameter(final ParameterContext parameter, final ExtensionContext context)
    {
        return server(context);
    }

    /** The run's server, started on first use. */
    static LocalPostgres server(final ExtensionContext context)
    {
        return context.getRoot().getStore(NAMESPACE).computeIfAbsent(LocalPostgres.class, type ->
        {
            try
            {
                return LocalPostgres.start();
            }
            catch (final IOException | SQLException ex)
            {
                throw new IllegalStateException("starting PostgreSQL failed", ex);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted starting PostgreSQL", ex);
            }
        }, LocalPostgres.class);
    }
}
