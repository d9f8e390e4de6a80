package io.xio.spring.autoconfigure.sample;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** Marks this package as the application's, as {@code @SpringBootApplication} would. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class SampleApplication
{
}
