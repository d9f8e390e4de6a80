package io.xio.spring.autoconfigure.sample.slow.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The slow service's application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class SlowServerApplication
{
}
