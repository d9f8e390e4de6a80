package io.xio.spring.autoconfigure.sample.retry.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The flaky service's application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class FlakyServerApplication
{
}
