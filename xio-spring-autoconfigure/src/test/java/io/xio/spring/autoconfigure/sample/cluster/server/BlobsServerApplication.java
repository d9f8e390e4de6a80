package io.xio.spring.autoconfigure.sample.cluster.server;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** A blobs server: a plain Spring Boot application, registering in whatever discovery it has. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BlobsServerApplication
{
}
