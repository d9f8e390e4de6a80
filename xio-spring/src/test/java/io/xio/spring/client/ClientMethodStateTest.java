package io.xio.spring.client;

import io.xio.annotation.XioMethod;
import io.xio.engine.CallOptions;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The options a call of a method is sent with: shared by every call with the usual deadline. */
class ClientMethodStateTest
{
    interface Api
    {
        @XioMethod(idempotent = true)
        String read(String key);
    }

    @Test
    void aCallWithTheUsualDeadlineSharesItsMethodsOptionsAndOneWithAnotherGetsItsOwn() throws Exception
    {
        final Duration usual = Duration.ofSeconds(2);
        final ClientMethodState state = new ClientMethodState(
            ServiceMethod.of(Api.class.getMethod("read", String.class), Api.class), CallRecorder.NONE,
            new JacksonXioCodec(new JsonMapper()), usual);

        final CallOptions elsewhere = state.options(state.timeout, false);
        final CallOptions onContext = state.options(state.timeout, true);
        final CallOptions shorter = state.options(Duration.ofMillis(500), false);

        assertThat(state.options(state.timeout, false)).isSameAs(elsewhere);
        assertThat(state.options(state.timeout, true)).isSameAs(onContext);
        assertThat(elsewhere).isEqualTo(new CallOptions(usual, false, true, true));
        assertThat(onContext.waitWhenFull()).as("a context thread must not wait for room").isFalse();
        assertThat(shorter).isEqualTo(new CallOptions(Duration.ofMillis(500), false, true, true));
        assertThat(state.options(Duration.ofMillis(500), false)).isNotSameAs(shorter);
    }
}
