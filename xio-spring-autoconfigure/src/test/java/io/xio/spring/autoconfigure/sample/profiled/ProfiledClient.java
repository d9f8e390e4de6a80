package io.xio.spring.autoconfigure.sample.profiled;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.orders.api.Orders;
import org.springframework.context.annotation.Profile;

/** A client only in the cluster profile (as the sample's ShmBlobsClient is only outside it); no settings. */
@XioClient("profiled")
@Profile("cluster")
public interface ProfiledClient extends Orders
{
}
