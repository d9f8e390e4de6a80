package io.xio.spring.autoconfigure.sample.retry.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The flaky service's client application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class FlakyClientApplication
{
}
