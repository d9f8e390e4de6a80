package io.xio.spring.autoconfigure.sample.acronym;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.orders.api.Orders;

/** A client whose name starts with an acronym. */
@XioClient("XMLService")
public interface XmlServiceClient extends Orders
{
}
