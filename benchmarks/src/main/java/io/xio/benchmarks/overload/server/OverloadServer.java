package io.xio.benchmarks.overload.server;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** The overload benchmark's server application: {@link WorkService} and {@link ProbeService}. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class OverloadServer
{
}
