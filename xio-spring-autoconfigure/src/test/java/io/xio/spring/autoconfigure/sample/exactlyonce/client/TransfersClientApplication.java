package io.xio.spring.autoconfigure.sample.exactlyonce.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The transfers service's client application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class TransfersClientApplication
{
}
