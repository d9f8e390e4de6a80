package io.xio.spring.autoconfigure.sample.nameless;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class NamelessApplication
{
}
