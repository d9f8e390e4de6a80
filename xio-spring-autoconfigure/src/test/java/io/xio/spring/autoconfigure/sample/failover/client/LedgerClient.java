package io.xio.spring.autoconfigure.sample.failover.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.failover.Ledger;

/** The client of every ledger server, configured under {@code xio.clients.ledger}. */
@XioClient("ledger")
public interface LedgerClient extends Ledger
{
}
