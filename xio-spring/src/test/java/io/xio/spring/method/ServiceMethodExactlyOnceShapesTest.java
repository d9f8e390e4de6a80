package io.xio.spring.method;

import io.xio.annotation.XioMethod;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @XioMethod(exactlyOnce = true)} fits a method with one answer: a value, void, or (for a client, which may wait
 * asynchronously; the exporter refuses them on a service) a future or a {@code Mono}. A stream, a one-way message and
 * a method that says it is idempotent as well are refused, naming the method.
 */
class ServiceMethodExactlyOnceShapesTest
{
    interface Shapes
    {
        @XioMethod(exactlyOnce = true)
        String value(String id);

        @XioMethod(exactlyOnce = true)
        void nothing(String id);

        @XioMethod(exactlyOnce = true)
        byte[] bytes(String id);

        @XioMethod(exactlyOnce = true, oneWay = true)
        void oneWay(String id);

        @XioMethod(exactlyOnce = true)
        Flux<String> stream(String id);

        @XioMethod(exactlyOnce = true)
        Mono<String> upload(Flux<String> values);

        @XioMethod(exactlyOnce = true)
        Mono<String> mono(String id);

        @XioMethod(exactlyOnce = true)
        CompletableFuture<String> future(String id);

        @XioMethod(exactlyOnce = true)
        CompletionStage<String> stage(String id);

        @XioMethod(exactlyOnce = true, idempotent = true)
        String both(String id);

        String plain(String id);
    }

    @Test
    void aMethodAnsweringSynchronouslyMayBeExactlyOnce()
    {
        assertThat(describe("value", String.class).exactlyOnce()).isTrue();
        assertThat(describe("nothing", String.class).exactlyOnce()).isTrue();
        assertThat(describe("bytes", String.class).exactlyOnce()).isTrue();
        assertThat(describe("plain", String.class).exactlyOnce()).isFalse();
    }

    @Test
    void aClientMayWaitForAnExactlyOnceCallOnAFutureOrAMono()
    {
        assertThat(describe("mono", String.class).exactlyOnce()).isTrue();
        assertThat(describe("future", String.class).exactlyOnce()).isTrue();
        assertThat(describe("stage", String.class).exactlyOnce()).isTrue();
    }

    @Test
    void oneWayStreamsAndIdempotentMethodsAreRefusedNamingTheMethod()
    {
        refused("oneWay", "one-way", String.class);
        refused("stream", "a stream", String.class);
        refused("upload", "a stream", Flux.class);
        refused("both", "choose one", String.class);
    }

    private static void refused(final String name, final String why, final Class<?> parameter)
    {
        assertThatThrownBy(() -> describe(name, parameter)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("exactlyOnce = true").hasMessageContaining("Shapes." + name + "(")
            .hasMessageContaining(why);
    }

    private static ServiceMethod describe(final String name, final Class<?> parameter)
    {
        try
        {
            final Method method = Shapes.class.getMethod(name, parameter);
            return ServiceMethod.of(method, Shapes.class);
        }
        catch (final NoSuchMethodException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
