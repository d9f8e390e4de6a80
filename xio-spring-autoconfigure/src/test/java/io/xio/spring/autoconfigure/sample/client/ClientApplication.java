package io.xio.spring.autoconfigure.sample.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The client application: this package holds its clients, as {@code @SpringBootApplication} would mark it. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class ClientApplication
{
}
