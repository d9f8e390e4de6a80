package io.xio.spring.test.app.server;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** An application that only serves {@link GreeterService}. */
@SpringBootConfiguration
@EnableAutoConfiguration
@AutoConfigurationPackage
public class ServerApp
{
}
