package io.xio.spring.method;

import io.xio.annotation.XioMethod;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @XioMethod(timeout)} in the styles a Spring property takes a duration in. */
class ServiceMethodTimeoutTest
{
    interface Timed
    {
        @XioMethod(timeout = "250ms")
        void millis();

        @XioMethod(timeout = "2s")
        void seconds();

        @XioMethod(timeout = "PT1M")
        void iso();

        @XioMethod(timeout = "500")
        void bare();

        void none();
    }

    interface Bad
    {
        @XioMethod(timeout = "soon")
        void soon();
    }

    @Test
    void aTimeoutIsReadWithAUnitSuffixAsIsoOrAsBareMilliseconds() throws NoSuchMethodException
    {
        assertThat(timeout("millis")).isEqualTo(Duration.ofMillis(250));
        assertThat(timeout("seconds")).isEqualTo(Duration.ofSeconds(2));
        assertThat(timeout("iso")).isEqualTo(Duration.ofMinutes(1));
        assertThat(timeout("bare")).isEqualTo(Duration.ofMillis(500));
        assertThat(timeout("none")).isNull();
    }

    @Test
    void aTimeoutThatIsNoDurationFailsNamingTheMethod()
    {
        assertThatThrownBy(() -> ServiceMethod.of(Bad.class.getMethod("soon"), Bad.class))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("@XioMethod(timeout = \"soon\")").hasMessageContaining("soon()");
    }

    private static Duration timeout(final String method) throws NoSuchMethodException
    {
        return ServiceMethod.of(Timed.class.getMethod(method), Timed.class).timeout();
    }
}
