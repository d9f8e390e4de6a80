package io.xio.spring.autoconfigure.sample.secure.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The secured service's client application; its credentials come from properties or a provider bean. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class TradesClientApplication
{
}
