package io.xio.spring.autoconfigure.client;

import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.client.XioClientSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A client's retry from {@code xio.client.retry.*} and its own {@code xio.clients.<name>.retry.*}. */
class XioClientRetrySettingsTest
{
    @Test
    void aNamedClientsSettingsOverrideTheDefaultsOneByOne()
    {
        final XioProperties.Retry defaults = new XioProperties.Retry();
        final XioProperties.NamedRetry named = new XioProperties.NamedRetry();
        assertThat(XioClientFactoryBean.retry(defaults, null, "kv"))
            .isEqualTo(new XioClientSettings.Retry(3, Duration.ofMillis(50), Duration.ofSeconds(1)));
        named.setMaxBackoff(Duration.ofMillis(200));
        assertThat(XioClientFactoryBean.retry(defaults, named, "kv"))
            .isEqualTo(new XioClientSettings.Retry(3, Duration.ofMillis(50), Duration.ofMillis(200)));
        named.setMaxAttempts(1);
        assertThat(XioClientFactoryBean.retry(defaults, named, "kv").maxAttempts()).isEqualTo(1);
        named.setInitialBackoff(Duration.ofSeconds(1));
        assertThatThrownBy(() -> XioClientFactoryBean.retry(defaults, named, "kv"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client kv")
            .hasMessageContaining("xio.clients.<name>.retry.*");
        assertThatThrownBy(() -> defaults.setMaxAttempts(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
