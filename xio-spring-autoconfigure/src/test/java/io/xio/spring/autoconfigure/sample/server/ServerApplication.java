package io.xio.spring.autoconfigure.sample.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The server application: this package holds its services, as {@code @SpringBootApplication} would mark it. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class ServerApplication
{
}
