package io.xio.spring.autoconfigure.sample.failover.server;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.sample.failover.Ledger;
import org.springframework.beans.factory.annotation.Value;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One server's ledger: records each call it ran ({@code read:key}, {@code write:key}); with {@code test.hold=true}
 * it answers none until {@link #release()}, as a server that hangs and then dies would.
 */
@XioService("ledger")
public class LedgerService implements Ledger
{
    private final String id;
    private final boolean hold;
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<String> ran = new CopyOnWriteArrayList<>();

    public LedgerService(@Value("${test.server-id}") final String id, @Value("${test.hold:false}") final boolean hold)
    {
        this.id = id;
        this.hold = hold;
    }

    @Override
    public String read(final String key)
    {
        return run("read:" + key);
    }

    @Override
    public String write(final String key)
    {
        return run("write:" + key);
    }

    private String run(final String call)
    {
        ran.add(call);
        if (hold)
        {
            try
            {
                if (!release.await(60, TimeUnit.SECONDS))
                {
                    throw new IllegalStateException("never released");
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
        return id;
    }

    /** Lets held calls end (their answers go nowhere once the server is gone). */
    public void release()
    {
        release.countDown();
    }

    /** The calls this server ran, in order. */
    public List<String> ran()
    {
        return ran;
    }
}
