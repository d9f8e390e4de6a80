package io.xio.spring.autoconfigure.sample.securestreams.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/**
 * Exports the orders service. Run beside {@code TradesServerApplication}, whose users, method security and trades
 * service (calls with the same roles) it shares.
 */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class OrdersServerApplication
{
}
