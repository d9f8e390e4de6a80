package io.xio.benchmarks.ledger.spring.server;

import io.xio.annotation.XioService;
import io.xio.benchmarks.ledger.Transfers;
import io.xio.benchmarks.ledger.spring.api.TransferApi;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * Both methods make the same transfer with {@link JdbcTemplate}, on the connection of the transaction its class's
 * {@code @Transactional} starts (or, for the exactly-once one, joins: the ledger's). Runs on xio's workers, as an
 * exactly-once method must; thread-safe.
 */
@XioService("ledger-transfers")
@Transactional
public class TransferService implements TransferApi
{
    private static final ConnectionCallback<byte[]> TRANSFER = Transfers::transfer;

    private final JdbcTemplate jdbc;

    public TransferService(final JdbcTemplate jdbc)
    {
        this.jdbc = jdbc;
    }

    @Override
    public byte[] transfer()
    {
        return jdbc.execute(TRANSFER);
    }

    @Override
    public byte[] transferExactlyOnce()
    {
        return jdbc.execute(TRANSFER);
    }
}
