package io.xio.spring.autoconfigure.sample.failover.server;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** One ledger server's application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class LedgerServerApplication
{
}
