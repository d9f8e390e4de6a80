package io.xio.benchmarks.ledger.spring.client;

import io.xio.annotation.XioClient;
import io.xio.benchmarks.ledger.spring.api.TransferApi;

/** The transfers over {@code xio.clients.ledger-transfers}; thread-safe. */
@XioClient("ledger-transfers")
public interface TransferClient extends TransferApi
{
}
