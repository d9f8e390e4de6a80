package io.xio.spring.autoconfigure.sample.failover.client;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** The ledger's client application. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class LedgerClientApplication
{
}
