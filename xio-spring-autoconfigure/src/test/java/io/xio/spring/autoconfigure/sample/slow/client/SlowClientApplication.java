package io.xio.spring.autoconfigure.sample.slow.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The slow service's client application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class SlowClientApplication
{
}
