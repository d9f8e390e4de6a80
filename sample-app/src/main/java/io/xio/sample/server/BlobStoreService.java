package io.xio.sample.server;

import io.xio.annotation.XioService;
import io.xio.sample.SampleProperties;
import io.xio.sample.api.BlobStore;
import io.xio.sample.api.Checksums;
import org.springframework.context.annotation.Profile;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server side: values in memory, in direct buffers. Arguments are views into the received message that
 * are valid only while the method runs, so {@link #put} copies; {@link #get} returns a read-only view of the
 * stored buffer, which xio sends without copying it again. Runs inline on the context thread: nothing here
 * blocks.
 */
@XioService(value = "blobs", dispatch = XioService.Dispatch.INLINE)
@Profile("!client")
public class BlobStoreService implements BlobStore
{
    private final Map<String, ByteBuffer> values = new ConcurrentHashMap<>();
    private final String name;
    private final WriteLedger ledger;

    public BlobStoreService(final SampleProperties properties, final WriteLedger ledger)
    {
        this.name = properties.getName();
        this.ledger = ledger;
    }

    @Override
    public void put(final String key, final ByteBuffer value)
    {
        final ByteBuffer copy = ByteBuffer.allocateDirect(value.remaining());
        copy.put(value.duplicate()).flip();
        values.put(key, copy.asReadOnlyBuffer());
    }

    @Override
    public ByteBuffer get(final String key)
    {
        final ByteBuffer value = values.get(key);
        return value == null ? null : value.duplicate();
    }

    @Override
    public CompletableFuture<ByteBuffer> getAsync(final String key)
    {
        return CompletableFuture.completedFuture(get(key));
    }

    @Override
    public int write(final String client, final long sequence)
    {
        return ledger.execute(client, sequence);
    }

    @Override
    public boolean delete(final String key)
    {
        return values.remove(key) != null;
    }

    @Override
    public Summary summary()
    {
        long bytes = 0;
        long crc = 0;
        for (final ByteBuffer value : values.values())
        {
            bytes += value.remaining();
            crc ^= Checksums.crc(value);
        }
        return new Summary(name, values.size(), bytes, crc);
    }
}
