package io.xio.spring.autoconfigure.sample.securestreams.client;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.securestreams.api.Orders;

/** The client side of {@link Orders}, configured under {@code xio.clients.orders}. */
@XioClient("orders")
public interface OrdersClient extends Orders
{
}
