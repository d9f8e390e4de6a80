package io.xio.spring.autoconfigure.sample.both;

import io.xio.annotation.XioClient;
import io.xio.spring.autoconfigure.sample.api.KvStore;
import io.xio.spring.autoconfigure.sample.client.ClientApplication;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Service and client in one application: the in-JVM {@code local} transport between them. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage(basePackageClasses = {ServerApplication.class, ClientApplication.class})
public class BothApplication
{
    /** A bean that takes its client through a field. */
    public static class KvUser
    {
        @XioClient("kv")
        private KvStore kv;

        public String read(final String key)
        {
            return kv.get(key);
        }
    }

    @Bean
    KvUser kvUser()
    {
        return new KvUser();
    }

    /** A bean that takes its client through its constructor. */
    public static class KvWriter
    {
        private final KvStore kv;

        public KvWriter(@XioClient("kv") final KvStore kv)
        {
            this.kv = kv;
        }

        public void write(final String key, final String value)
        {
            kv.put(key, value);
        }
    }

    @Bean
    KvWriter kvWriter(@XioClient("kv") final KvStore kv)
    {
        return new KvWriter(kv);
    }
}
