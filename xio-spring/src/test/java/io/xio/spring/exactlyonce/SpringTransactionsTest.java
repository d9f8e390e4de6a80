package io.xio.spring.exactlyonce;

import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ledger writes only on the connection the transaction bound: a manager of another data source fails the work
 * before it runs, instead of handing it a connection that commits apart.
 */
class SpringTransactionsTest
{
    @Test
    void aTransactionOfAnotherDataSourcesManagerFailsBeforeTheWorkRuns() throws Exception
    {
        final EmbeddedDatabase ledger = database();
        final EmbeddedDatabase other = database();
        try
        {
            new JdbcTemplate(ledger).execute("CREATE TABLE entries (id INT)");
            final SpringTransactions wrong = new SpringTransactions(new DataSourceTransactionManager(other), ledger);
            assertThatThrownBy(() -> wrong.inTransaction(connection ->
                connection.createStatement().executeUpdate("INSERT INTO entries VALUES (1)")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("bound no connection");
            assertThat(new JdbcTemplate(ledger).queryForObject("SELECT COUNT(*) FROM entries", Integer.class))
                .isZero();

            final SpringTransactions right = new SpringTransactions(new DataSourceTransactionManager(ledger), ledger);
            assertThat((Integer)right.inTransaction(connection ->
                connection.createStatement().executeUpdate("INSERT INTO entries VALUES (1)"))).isEqualTo(1);
        }
        finally
        {
            ledger.shutdown();
            other.shutdown();
        }
    }

    private static EmbeddedDatabase database()
    {
        return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).setName("st-" + UUID.randomUUID())
            .build();
    }
}
