package io.xio.spring.autoconfigure.sample.errors.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The failing service's application, with its advices. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class AccountsServerApplication
{
}
