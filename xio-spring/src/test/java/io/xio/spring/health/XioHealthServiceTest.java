package io.xio.spring.health;

import io.xio.spring.health.XioHealth.HealthCheck;
import io.xio.spring.health.XioHealth.ServingStatus;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The health service's answers from the server's state and its sources, asked directly. */
class XioHealthServiceTest
{
    /** A serving server exporting the service "kv". */
    private static final XioHealthService.Server SERVING = new XioHealthService.Server()
    {
        @Override
        public boolean isServing()
        {
            return true;
        }

        @Override
        public boolean exports(final String service)
        {
            return "kv".equals(service);
        }
    };

    @Test
    void aSourceThatDoesNotKnowAServiceWithoutSayingWhyMakesItNotServingWithAReason()
    {
        final XioHealthService health = new XioHealthService(SERVING,
            List.of(service -> new HealthCheck(ServingStatus.SERVICE_UNKNOWN, null)), null);
        final HealthCheck check = health.check("kv");
        assertThat(check.status()).isEqualTo(ServingStatus.NOT_SERVING);
        assertThat(check.detail()).isEqualTo("a health source does not know kv");
        assertThat(health.check(XioHealth.SERVER).detail()).isEqualTo("a health source does not know the server");
    }

    @Test
    void aSourceThatSaysWhyItDoesNotKnowAServiceIsQuoted()
    {
        final XioHealthService health = new XioHealthService(SERVING,
            List.of(service -> new HealthCheck(ServingStatus.SERVICE_UNKNOWN, "not configured")), null);
        assertThat(health.check("kv")).isEqualTo(HealthCheck.notServing("not configured"));
    }

    @Test
    void noNameAsksAboutTheWholeServer()
    {
        final List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        final XioHealthService health = new XioHealthService(SERVING, List.of(service ->
        {
            asked.add(service);
            return HealthCheck.SERVING;
        }), null);
        assertThat(health.check(null)).isEqualTo(HealthCheck.SERVING);
        assertThat(asked).containsExactly(XioHealth.SERVER);
    }
}
