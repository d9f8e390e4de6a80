package io.xio.spring.autoconfigure.ledger;

import io.xio.ledger.LedgerSchema;
import io.xio.spring.autoconfigure.XioProperties;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;

import javax.sql.DataSource;

/**
 * Creates the execution ledger's table and index when absent, as the context starts (before the services are
 * exported), in the application's database when {@code xio.ledger.initialize-schema} says so: {@code embedded}, the
 * default, only in an embedded one (as Spring Boot's own scripts), {@code always}, or {@code never} (the
 * application's migrations create it with the scripts {@code xio-ledger} ships). Idempotent, so every instance of
 * the application may do it.
 */
public final class XioLedgerSchemaInitializer implements InitializingBean
{
    private final DataSource dataSource;
    private final XioProperties.Ledger settings;
    private boolean created;

    public XioLedgerSchemaInitializer(final DataSource dataSource, final XioProperties.Ledger settings)
    {
        this.dataSource = dataSource;
        this.settings = settings;
    }

    @Override
    public void afterPropertiesSet() throws Exception
    {
        final boolean create = switch (settings.getInitializeSchema())
        {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> EmbeddedDatabaseConnection.isEmbedded(dataSource);
        };
        if (create)
        {
            LedgerSchema.create(dataSource, settings.getTableName());
            created = true;
        }
    }

    /** Whether the start-up created the table (or found it there). */
    public boolean created()
    {
        return created;
    }
}
