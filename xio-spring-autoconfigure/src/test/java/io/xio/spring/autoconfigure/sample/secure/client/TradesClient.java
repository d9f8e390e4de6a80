package io.xio.spring.autoconfigure.sample.secure.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.secure.api.Trades;

/** The client side of {@link Trades}, configured under {@code xio.clients.trades}. */
@XioClient("trades")
public interface TradesClient extends Trades
{
}
