package io.xio.spring.autoconfigure.sample.orders.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** Exports {@link OrdersService}. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class OrdersServerApplication
{
}
