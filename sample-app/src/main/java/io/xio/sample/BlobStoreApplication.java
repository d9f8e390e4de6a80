package io.xio.sample;

import io.xio.sample.client.LoadRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The sample: a blob store served over xio, and a client that loads it and reports latency. With no profile
 * it runs both in one JVM (TCP on 127.0.0.1 and shared memory); profile {@code server} or {@code client}
 * runs one side, as on separate hosts.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class BlobStoreApplication
{
    public static void main(final String[] args)
    {
        final ConfigurableApplicationContext context = SpringApplication.run(BlobStoreApplication.class, args);
        // A client's work ends with its load (and linger); a server runs until stopped.
        final LoadRunner load = context.getBeanProvider(LoadRunner.class).getIfAvailable();
        if (load != null && !context.getBean(SampleProperties.class).getLinger().isNegative())
        {
            final boolean failed = load.done().handle((ok, ex) -> ex != null).join();
            System.exit(SpringApplication.exit(context, () -> failed ? 1 : 0));
        }
    }
}
