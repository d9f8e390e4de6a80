package io.xio.spring.test.app;

import io.xio.spring.test.app.client.GreeterClient;
import io.xio.spring.test.app.server.GreeterService;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** An application that serves {@link GreeterService} and calls it through {@link GreeterClient}. */
@SpringBootConfiguration
@EnableAutoConfiguration
@AutoConfigurationPackage(basePackageClasses = {GreeterService.class, GreeterClient.class})
public class BothApp
{
}
