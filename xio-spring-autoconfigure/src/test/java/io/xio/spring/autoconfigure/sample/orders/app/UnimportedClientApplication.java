package io.xio.spring.autoconfigure.sample.orders.app;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The same application without {@code @ImportXioClients}: its own package has no client interface. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class UnimportedClientApplication
{
}
