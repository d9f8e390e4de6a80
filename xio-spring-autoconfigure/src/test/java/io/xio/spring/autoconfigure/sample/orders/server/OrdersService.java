package io.xio.spring.autoconfigure.sample.orders.server;

import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.sample.orders.api.Orders;

@XioService("orders")
public class OrdersService implements Orders
{
    @Override
    public String place(final String item)
    {
        return "placed " + item;
    }
}
