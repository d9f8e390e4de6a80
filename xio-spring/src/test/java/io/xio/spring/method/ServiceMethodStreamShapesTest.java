package io.xio.spring.method;

import io.xio.annotation.XioMethod;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which methods are streams, of what shape and message type, and which shapes are refused as the proxy is made. */
class ServiceMethodStreamShapesTest
{
    record Quote(String symbol, double price)
    {
    }

    interface Shapes
    {
        Flux<Quote> feed(String symbol);

        Publisher<? extends Quote> published(String symbol);

        Mono<Double> total(String account, Flux<Quote> quotes);

        Flux<Quote> converted(Publisher<Quote> quotes);

        Flux<ByteBuffer> chunks(ByteBuffer blob);

        Mono<List<Quote>> last(String symbol);

        CompletableFuture<Quote> later(String symbol);
    }

    interface TwoStreams
    {
        Flux<Quote> both(Flux<Quote> one, Flux<Quote> two);
    }

    interface StreamedIntoAValue
    {
        double total(Flux<Quote> quotes);
    }

    interface MonoParameter
    {
        Mono<Double> total(Mono<Quote> quote);
    }

    interface FlowPublisher
    {
        Flow.Publisher<Quote> feed(String symbol);
    }

    interface Nested
    {
        Flux<Mono<Quote>> feed(String symbol);
    }

    interface OneWayStream
    {
        @XioMethod(oneWay = true)
        Flux<Quote> feed(String symbol);
    }

    private static ServiceMethod method(final Class<?> api, final String name)
    {
        for (final java.lang.reflect.Method method : api.getMethods())
        {
            if (method.getName().equals(name))
            {
                return ServiceMethod.of(method, api);
            }
        }
        throw new AssertionError(name);
    }

    @Test
    void fluxAndPublisherResultsAndParametersAreStreamsOfTheirElementType()
    {
        final ServiceMethod feed = method(Shapes.class, "feed");
        assertThat(feed.isStream()).isTrue();
        assertThat(feed.kind()).isEqualTo("server-stream");
        assertThat(feed.resultType()).isEqualTo(Quote.class);
        assertThat(feed.streamParameter()).isEqualTo(-1);

        assertThat(method(Shapes.class, "published").resultType()).isEqualTo(Quote.class);

        final ServiceMethod total = method(Shapes.class, "total");
        assertThat(total.kind()).isEqualTo("client-stream");
        assertThat(total.streamParameter()).isEqualTo(1);
        assertThat(total.parameterTypes()[1]).isEqualTo(Quote.class);
        assertThat(total.segments()).containsExactly(false, false);
        assertThat(total.resultType()).isEqualTo(Double.class);

        assertThat(method(Shapes.class, "converted").kind()).isEqualTo("bidi-stream");
        assertThat(method(Shapes.class, "chunks").resultIsSegment()).isTrue();
        assertThat(method(Shapes.class, "chunks").segments()).containsExactly(true);
    }

    @Test
    void aMonoResultWithoutAStreamIsAnOrdinaryCallAnsweredLater()
    {
        final ServiceMethod last = method(Shapes.class, "last");
        assertThat(last.isStream()).isFalse();
        assertThat(last.answersLater()).isTrue();
        assertThat(last.kind()).isEqualTo("mono");
        assertThat(last.resultType().getTypeName()).isEqualTo("java.util.List<" + Quote.class.getName() + ">");
        assertThat(method(Shapes.class, "later").answersLater()).isTrue();
    }

    @Test
    void shapesThatCouldOnlyFailAtRunTimeAreRefusedNamingTheMethod()
    {
        assertThatThrownBy(() -> method(TwoStreams.class, "both")).hasMessageContaining("both")
            .hasMessageContaining("two streams");
        assertThatThrownBy(() -> method(StreamedIntoAValue.class, "total")).hasMessageContaining("total")
            .hasMessageContaining("returns a Flux or Publisher");
        assertThatThrownBy(() -> method(MonoParameter.class, "total")).hasMessageContaining("takes a Mono");
        assertThatThrownBy(() -> method(FlowPublisher.class, "feed")).hasMessageContaining("Flow.Publisher");
        assertThatThrownBy(() -> method(Nested.class, "feed")).hasMessageContaining("nests a Mono");
        assertThatThrownBy(() -> method(OneWayStream.class, "feed")).hasMessageContaining("never one-way");
    }
}
