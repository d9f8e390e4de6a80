package io.xio.spring.autoconfigure.sample.nameless;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.orders.api.Orders;

/** A client annotation with neither a name nor a uri. */
@XioClient
public interface NamelessClient extends Orders
{
}
