package io.xio.spring.autoconfigure.sample.exactlyonce.server;

import io.xio.annotation.XioService;
import io.xio.engine.Session;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes each transfer with {@link JdbcTemplate} in the transaction its class's {@code @Transactional} joins, and
 * counts how often its methods ran. The next {@link #goAwayNext n} transfers close every session of the server
 * once their transaction committed, as a server that died right then: the call committed, its caller got no
 * answer. {@link #held} waits until {@link #release()}.
 */
@XioService("transfers")
@Transactional
public class TransfersService implements Transfers
{
    private final JdbcTemplate jdbc;
    private final XioEngine engine;
    private final AtomicInteger executions = new AtomicInteger();
    private final AtomicInteger goAway = new AtomicInteger();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    public TransfersService(final JdbcTemplate jdbc, final XioEngine engine)
    {
        this.jdbc = jdbc;
        this.engine = engine;
        jdbc.execute("CREATE TABLE IF NOT EXISTS transfers (id VARCHAR(64) NOT NULL, amount BIGINT NOT NULL)");
    }

    @Override
    public Receipt transfer(final String id, final long amount)
    {
        final Receipt receipt = write(id, amount);
        if (goAway.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0)
        {
            // Once the call's transaction committed, before it is answered: as a server that died right then.
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization()
            {
                @Override
                public void afterCommit()
                {
                    engine.sessions().forEach(Session::close);
                }
            });
        }
        return receipt;
    }

    @Override
    public Receipt failUnchecked(final String id)
    {
        write(id, 0);
        throw new IllegalStateException("declined " + id);
    }

    @Override
    public Receipt decline(final String id) throws InsufficientFunds
    {
        final Receipt written = write(id, 0);
        throw new InsufficientFunds("no funds for " + id + " (execution " + written.execution() + ")");
    }

    @Override
    @Transactional(rollbackFor = InsufficientFunds.class)
    public Receipt declineAndRollBack(final String id) throws InsufficientFunds
    {
        write(id, 0);
        throw new InsufficientFunds("no funds for " + id);
    }

    @Override
    public Receipt held(final String id)
    {
        final Receipt receipt = write(id, 0);
        entered.countDown();
        try
        {
            release.await(30, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return receipt;
    }

    @Override
    @Transactional(readOnly = true)
    public int rows(final String id)
    {
        return jdbc.queryForObject("SELECT COUNT(*) FROM transfers WHERE id = ?", Integer.class, id);
    }

    private Receipt write(final String id, final long amount)
    {
        jdbc.update("INSERT INTO transfers (id, amount) VALUES (?, ?)", id, amount);
        return new Receipt(id, amount, executions.incrementAndGet());
    }

    /** The next {@code count} transfers close every session of the server once committed, before answering. */
    public void goAwayNext(final int count)
    {
        goAway.set(count);
    }

    /** How often the exactly-once methods ran (and wrote), committed or not. */
    public int executions()
    {
        return executions.get();
    }

    /** Waits until {@link #held} runs. */
    public boolean awaitHeld() throws InterruptedException
    {
        return entered.await(10, TimeUnit.SECONDS);
    }

    public void release()
    {
        release.countDown();
    }
}
