package io.xio.spring.test;

import io.xio.spring.autoconfigure.XioAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Imported by {@link AutoConfigureXioLocalTransport}: the engine of the test's context gets the
 * {@link XioLocalTransport} in place of its network transports.
 */
@AutoConfiguration(before = XioAutoConfiguration.class)
public class XioLocalTransportAutoConfiguration
{
    @Bean
    public XioLocalTransport xioLocalTransport()
    {
        return new XioLocalTransport();
    }
}
