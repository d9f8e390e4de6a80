package io.xio.spring.autoconfigure.sample.errors.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The failing service's client application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class AccountsClientApplication
{
}
