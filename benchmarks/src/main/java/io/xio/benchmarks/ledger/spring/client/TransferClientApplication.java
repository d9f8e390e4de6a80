package io.xio.benchmarks.ledger.spring.client;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** The Spring pair's client: a context with the {@link TransferClient} proxy, and no database. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TransferClientApplication
{
}
