package io.xio.benchmarks.spring.server;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** The benchmark's service application. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ServerApplication
{
}
