package io.xio.spring.autoconfigure.sample.cluster.server;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.sample.cluster.api.Blobs;
import org.springframework.beans.factory.annotation.Value;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** One server's blobs: counts the writes it ran, per key, so a test sees none ran twice. */
@XioService("blobs")
public class BlobsService implements Blobs
{
    private final String id;
    private final Map<String, AtomicInteger> writes = new ConcurrentHashMap<>();

    public BlobsService(@Value("${test.server-id}") final String id)
    {
        this.id = id;
    }

    @Override
    public String read(final String key)
    {
        return id;
    }

    @Override
    public String write(final String key)
    {
        writes.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        return id;
    }

    /** The writes this server ran, per key. */
    public Map<String, AtomicInteger> writes()
    {
        return writes;
    }
}
