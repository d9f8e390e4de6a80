package io.xio.sample.api;

import io.xio.annotation.XioMethod;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A small scale-out blob store: values are raw bytes that travel as data segments (never through Jackson),
 * so a large value crosses without a copy on the sender's side.
 */
public interface BlobStore
{
    /** Stores a value; returns once the server has received it (a delivery receipt), not once it is stored. */
    @XioMethod(oneWay = true, receipt = true)
    void put(String key, ByteBuffer value);

    /** The value, or null. A read: safe to retry on another server. */
    @XioMethod(idempotent = true)
    ByteBuffer get(String key);

    /** The same, without blocking the caller: the load generator keeps many in flight this way. */
    @XioMethod(idempotent = true)
    CompletableFuture<ByteBuffer> getAsync(String key);

    /**
     * Records one write of the cluster load: {@code sequence} numbers the writes of {@code client}, so the pair is
     * the write's id, and the server counts how often it executed each id. Not idempotent, so xio never sends it
     * twice: in flight on a server that dies, it fails. Returns how many times this server has executed the id now
     * (1 unless something ran it again).
     */
    int write(String client, long sequence);

    /** Removes a value; safe to retry on another server. */
    @XioMethod(idempotent = true)
    boolean delete(String key);

    /** A checksum over every stored value, bounded in time: a big store answers late, and the caller gives up. */
    @XioMethod(timeout = "2s")
    Summary summary();

    /** How many values a server holds, and their total size and CRC32C (combined by XOR). */
    record Summary(String server, long values, long bytes, long crc)
    {
    }
}
