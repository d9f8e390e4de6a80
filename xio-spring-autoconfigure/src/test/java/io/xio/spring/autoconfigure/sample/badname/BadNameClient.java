package io.xio.spring.autoconfigure.sample.badname;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.orders.api.Orders;

/** A client whose name has a character no property name may hold. */
@XioClient("orders_v2")
public interface BadNameClient extends Orders
{
}
