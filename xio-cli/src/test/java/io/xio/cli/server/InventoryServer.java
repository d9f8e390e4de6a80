package io.xio.cli.server;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/** A Spring Boot server of {@link InventoryService}, as an application would write it. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(InventoryService.class)
public class InventoryServer
{
}
