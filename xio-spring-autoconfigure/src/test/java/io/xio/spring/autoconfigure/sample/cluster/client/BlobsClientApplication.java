package io.xio.spring.autoconfigure.sample.cluster.client;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** A blobs client: a plain Spring Boot application that names the service, not an address. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BlobsClientApplication
{
}
