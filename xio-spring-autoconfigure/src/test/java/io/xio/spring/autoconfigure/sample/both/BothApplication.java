package io.xio.spring.autoconfigure.sample.both;

import io.xio.spring.autoconfigure.sample.api.KvStore;
import io.xio.spring.autoconfigure.sample.client.ClientApplication;
import io.xio.spring.autoconfigure.sample.client.KvClient;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Service and client in one application: the in-JVM {@code local} transport between them. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage(basePackageClasses = {ServerApplication.class, ClientApplication.class})
public class BothApplication
{
    /** A bean that takes its client through its constructor, as the shared API's type. */
    public static class KvWriter
    {
        private final KvStore kv;

        public KvWriter(final KvStore kv)
        {
            this.kv = kv;
        }

        public void write(final String key, final String value)
        {
            kv.put(key, value);
        }
    }

    /** The service is a KvStore too in this application, so the client is asked for by its own type. */
    @Bean
    KvWriter kvWriter(final KvClient kv)
    {
        return new KvWriter(kv);
    }
}
