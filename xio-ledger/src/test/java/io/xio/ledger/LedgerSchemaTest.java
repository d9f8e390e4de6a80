package io.xio.ledger;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the ledger takes as a table name, and which databases it refuses, without a database. */
class LedgerSchemaTest
{
    @Test
    void aTableNameIsAnIdentifierOptionallyAfterItsSchema()
    {
        assertThat(JdbcExecutionLedger.builder().table("ledger").build().table()).isEqualTo("ledger");
        assertThat(JdbcExecutionLedger.builder().table("billing.Ledger_2").build().table())
            .isEqualTo("billing.Ledger_2");
        assertThat(JdbcExecutionLedger.builder().table("_x").build().table()).isEqualTo("_x");
    }

    @Test
    void aTableNameThatIsNoIdentifierIsRefusedNamingIt()
    {
        for (final String bad : new String[] {"", "2ledger", "ledger; DROP TABLE orders", "a.b.c", "\"quoted\"",
            "led-ger", ".ledger", "ledger.", "x".repeat(49)})
        {
            assertThatThrownBy(() -> JdbcExecutionLedger.builder().table(bad))
                .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + bad + "'");
        }
    }

    @Test
    void aDatabaseOtherThanH2OrPostgresqlIsRefusedNamingIt()
    {
        final DatabaseMetaData mysql = (DatabaseMetaData)Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {DatabaseMetaData.class}, (proxy, method, arguments) ->
                method.getName().equals("getDatabaseProductName") ? "MySQL" : null);
        final Connection connection = (Connection)Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {Connection.class}, (proxy, method, arguments) ->
                method.getName().equals("getMetaData") ? mysql : null);

        assertThatThrownBy(() -> LedgerSchema.statements(connection, "ledger"))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("H2 and PostgreSQL, not on MySQL");
    }

    @Test
    void aTimeToLiveIsPositive()
    {
        assertThatThrownBy(() -> JdbcExecutionLedger.builder().timeToLive(java.time.Duration.ZERO))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(JdbcExecutionLedger.create().timeToLive()).isEqualTo(java.time.Duration.ofHours(24));
    }
}
