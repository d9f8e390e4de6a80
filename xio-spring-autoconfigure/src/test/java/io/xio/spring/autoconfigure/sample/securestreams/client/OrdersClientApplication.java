package io.xio.spring.autoconfigure.sample.securestreams.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The orders client application; its credentials come from properties. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class OrdersClientApplication
{
}
