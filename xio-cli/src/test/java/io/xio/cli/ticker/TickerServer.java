package io.xio.cli.ticker;

import io.xio.cli.server.InventoryService;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * A Spring Boot server of {@link TickerService}, with stream methods, and {@link InventoryService}, without. In a
 * package of its own, as the services of a Boot application's package are exported: the inventory's servers do not
 * have the ticker.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({TickerService.class, InventoryService.class})
public class TickerServer
{
}
