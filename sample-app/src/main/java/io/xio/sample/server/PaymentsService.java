package io.xio.sample.server;

import io.xio.annotation.XioService;
import io.xio.sample.api.Payments;
import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.transaction.annotation.Transactional;

import java.sql.PreparedStatement;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server side of the payments: each payment is a row of table {@code payments} (schema.sql) in the embedded H2
 * database Spring Boot makes, written with {@link JdbcTemplate} in the transaction that the exactly-once call runs
 * in, next to xio's ledger entry for the call's key. Counts how often {@link #pay} ran, so that a replayed call shows
 * as one that did not. Runs on xio's workers (it blocks on the database); thread-safe.
 */
@XioService("payments")
@Transactional
@Profile("!client & !cluster")
public class PaymentsService implements Payments
{
    private static final String INSERT = "INSERT INTO payments (order_id, cents) VALUES (?, ?)";

    private final JdbcTemplate jdbc;
    private final AtomicLong executions = new AtomicLong();

    public PaymentsService(final JdbcTemplate jdbc)
    {
        this.jdbc = jdbc;
    }

    @Override
    public Receipt pay(final String order, final long cents)
    {
        executions.incrementAndGet();
        final KeyHolder id = new GeneratedKeyHolder();
        jdbc.update(connection ->
        {
            final PreparedStatement insert = connection.prepareStatement(INSERT, new String[] {"id"});
            insert.setString(1, order);
            insert.setLong(2, cents);
            return insert;
        }, id);
        return new Receipt(order, cents, Objects.requireNonNull(id.getKey(), "the payment's id").longValue());
    }

    @Override
    @Transactional(readOnly = true)
    public Totals totals()
    {
        return jdbc.queryForObject("SELECT COUNT(*), COALESCE(SUM(cents), 0) FROM payments",
            (row, n) -> new Totals(row.getLong(1), row.getLong(2), executions.get()));
    }
}
