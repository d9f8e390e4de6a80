package io.xio.benchmarks.ledger;

import io.xio.ledger.JdbcExecutionLedger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The control case's key row: a table made by {@code LedgerSchema} like the ledger's, written with one plain
 * {@code INSERT} of the columns the ledger's first use writes (key, outcome, answer, two timestamps). Thread-safe.
 */
final class KeyRows
{
    static final String TABLE = "bench_key_by_hand";

    private static final String INSERT = "INSERT INTO " + TABLE +
        " (idempotency_key, outcome, answer, created_at, expires_at) VALUES (?, ?, ?, ?, ?)";

    private KeyRows()
    {
    }

    static void insert(final Connection connection, final String key, final byte[] answer) throws SQLException
    {
        try (PreparedStatement insert = connection.prepareStatement(INSERT))
        {
            final OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            insert.setString(1, key);
            insert.setShort(2, (short)1);
            insert.setBytes(3, answer);
            insert.setObject(4, now);
            insert.setObject(5, now.plus(JdbcExecutionLedger.DEFAULT_TIME_TO_LIVE));
            insert.executeUpdate();
        }
    }
}
