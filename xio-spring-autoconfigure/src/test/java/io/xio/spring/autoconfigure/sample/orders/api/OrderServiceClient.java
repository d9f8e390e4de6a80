package io.xio.spring.autoconfigure.sample.orders.api;

import io.xio.annotation.XioClient;

/** A client whose camelCase name has its settings under {@code xio.clients.order-service}. */
@XioClient("orderService")
public interface OrderServiceClient extends Orders
{
}
