package io.xio.benchmarks.ledger.spring.api;

import io.xio.annotation.XioMethod;

/**
 * The Spring pair's service: the same transfer ({@code io.xio.benchmarks.ledger.Transfers}) as a plain method and as
 * an exactly-once one, each answering the transfer's 12 bytes. Shared by the server and its client.
 */
public interface TransferApi
{
    /** The transfer in the method's {@code @Transactional}: the baseline. */
    byte[] transfer();

    /** The same transfer, through the execution ledger in the same transaction. */
    @XioMethod(exactlyOnce = true)
    byte[] transferExactlyOnce();
}
