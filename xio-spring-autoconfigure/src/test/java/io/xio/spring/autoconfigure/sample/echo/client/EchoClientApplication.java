package io.xio.spring.autoconfigure.sample.echo.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The echo client application: this package holds its client. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class EchoClientApplication
{
}
