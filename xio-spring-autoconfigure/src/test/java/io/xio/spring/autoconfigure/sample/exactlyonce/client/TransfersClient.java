package io.xio.spring.autoconfigure.sample.exactlyonce.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers;

/** The client side of {@link Transfers}, configured under {@code xio.clients.transfers}. */
@XioClient("transfers")
public interface TransfersClient extends Transfers
{
}
