package io.xio.spring.autoconfigure.sample.orders.app;

import io.xio.spring.autoconfigure.ImportXioClients;
import io.xio.spring.autoconfigure.sample.orders.api.Orders;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** An application whose client interface lives in the shared API's package, outside its own. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
@ImportXioClients(basePackageClasses = Orders.class)
public class OrdersClientApplication
{
}
