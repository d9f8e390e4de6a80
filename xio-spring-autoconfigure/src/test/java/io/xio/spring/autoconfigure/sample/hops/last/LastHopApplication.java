package io.xio.spring.autoconfigure.sample.hops.last;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** Serves {@link LastHopService}. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class LastHopApplication
{
}
