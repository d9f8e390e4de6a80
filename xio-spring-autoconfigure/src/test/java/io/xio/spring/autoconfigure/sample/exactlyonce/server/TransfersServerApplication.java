package io.xio.spring.autoconfigure.sample.exactlyonce.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The transfers service's application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class TransfersServerApplication
{
}
