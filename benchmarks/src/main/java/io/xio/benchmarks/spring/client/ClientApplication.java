package io.xio.benchmarks.spring.client;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** The benchmark's client application. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ClientApplication
{
}
