package io.xio.benchmarks.ledger.spring.server;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The Spring pair's server: Boot's JDBC and transaction auto-configuration over the benchmark's pool (given to the
 * context as its {@code DataSource}; Boot's own is excluded for every benchmark in {@code application.properties}),
 * xio's ledger, and {@link TransferService} exported on a tcp portal.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TransferServerApplication
{
}
