package io.xio.spring.method;

import kotlin.Metadata;
import kotlin.Unit;
import kotlin.coroutines.Continuation;
import kotlinx.coroutines.flow.Flow;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How Kotlin shapes are recognised: interfaces written here as kotlinc compiles them (marked with {@link Metadata}, a
 * suspend function taking a {@code Continuation<? super T>} last and returning {@code Object}), so that the detection
 * is tested without a Kotlin compiler; the Kotlin module proves the same against real Kotlin.
 */
class ServiceMethodKotlinShapesTest
{
    record Item(String id, int price)
    {
    }

    @Metadata
    interface KotlinShapes
    {
        Object item(String id, Continuation<? super Item> continuation);

        Object touch(String id, Continuation<? super Unit> continuation);

        Object listed(int count, Continuation<? super List<Item>> continuation);

        Flow<Item> items(int count);

        Object itemsLater(int count, Continuation<? super Flow<Item>> continuation);

        Object total(Flow<Item> items, Continuation<? super Integer> continuation);

        Flow<Item> doubled(Flow<Item> items);

        Item plain(String id);
    }

    /** A Java interface whose last parameter happens to be a Continuation: no suspend function. */
    interface JavaShapes
    {
        Object item(String id, Continuation<? super Item> continuation);
    }

    @Metadata
    interface SuspendingMono
    {
        Object item(String id, Continuation<? super Mono<Item>> continuation);
    }

    @Metadata
    interface FlowIntoAValue
    {
        int total(Flow<Item> items);
    }

    @Metadata
    interface NestedFlow
    {
        Flow<Flow<Item>> nested();
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
        throw new IllegalArgumentException(name);
    }

    @Test
    void aSuspendFunctionIsACallAnsweredLaterWithoutItsContinuation()
    {
        final ServiceMethod item = method(KotlinShapes.class, "item");
        assertThat(item.suspending()).isTrue();
        assertThat(item.coroutines()).isTrue();
        assertThat(item.parameterTypes()).containsExactly(String.class);
        assertThat(item.segments()).hasSize(1);
        assertThat(item.resultType()).isEqualTo(Item.class);
        assertThat(item.returnKind()).isEqualTo(ServiceMethod.ReturnKind.MONO);
        assertThat(item.answersLater()).isTrue();
        assertThat(item.isStream()).isFalse();
        assertThat(item.kind()).isEqualTo("suspend");
        // The wire name is the declared signature's, as a Java client of the same interface computes it.
        assertThat(item.wireName()).isEqualTo("item(String)");

        assertThat(method(KotlinShapes.class, "listed").resultType().getTypeName())
            .isEqualTo("java.util.List<" + Item.class.getName() + ">");
    }

    @Test
    void unitIsNoValue()
    {
        final ServiceMethod touch = method(KotlinShapes.class, "touch");
        assertThat(touch.resultType()).isEqualTo(Void.class);
        assertThat(touch.kind()).isEqualTo("suspend");
    }

    @Test
    void flowsAreStreamsOfEveryShape()
    {
        final ServiceMethod items = method(KotlinShapes.class, "items");
        assertThat(items.kind()).isEqualTo("server-stream");
        assertThat(items.returnsFlow()).isTrue();
        assertThat(items.suspending()).isFalse();
        assertThat(items.resultType()).isEqualTo(Item.class);

        final ServiceMethod later = method(KotlinShapes.class, "itemsLater");
        assertThat(later.kind()).isEqualTo("server-stream");
        assertThat(later.returnsFlow()).isTrue();
        assertThat(later.suspending()).isTrue();
        assertThat(later.parameterTypes()).containsExactly(int.class);

        final ServiceMethod total = method(KotlinShapes.class, "total");
        assertThat(total.kind()).isEqualTo("client-stream");
        assertThat(total.streamsFlow()).isTrue();
        assertThat(total.streamParameter()).isZero();
        assertThat(total.parameterTypes()).containsExactly(Item.class);
        assertThat(total.resultType()).isEqualTo(Integer.class);

        final ServiceMethod doubled = method(KotlinShapes.class, "doubled");
        assertThat(doubled.kind()).isEqualTo("bidi-stream");
        assertThat(doubled.streamsFlow()).isTrue();
        assertThat(doubled.returnsFlow()).isTrue();
    }

    /** The Java shape of the same streams: a Flux where Kotlin takes a Flow. */
    interface JavaStreams
    {
        reactor.core.publisher.Mono<Integer> total(reactor.core.publisher.Flux<Item> items);

        reactor.core.publisher.Flux<Item> doubled(reactor.core.publisher.Flux<Item> items);
    }

    @Test
    void aFlowParameterHasTheWireNameOfAFluxOne()
    {
        assertThat(method(KotlinShapes.class, "total").wireName()).isEqualTo("total(Flux)")
            .isEqualTo(method(JavaStreams.class, "total").wireName());
        assertThat(method(KotlinShapes.class, "doubled").wireName())
            .isEqualTo(method(JavaStreams.class, "doubled").wireName());
    }

    @Test
    void anOrdinaryMethodOfAKotlinInterfaceIsPlain()
    {
        final ServiceMethod plain = method(KotlinShapes.class, "plain");
        assertThat(plain.coroutines()).isFalse();
        assertThat(plain.kind()).isEqualTo("plain");
    }

    @Test
    void aContinuationParameterOfAJavaInterfaceIsAnArgumentLikeAnyOther()
    {
        final ServiceMethod item = method(JavaShapes.class, "item");
        assertThat(item.suspending()).isFalse();
        assertThat(item.coroutines()).isFalse();
        assertThat(item.parameterTypes()).hasSize(2);
        assertThat(item.kind()).isEqualTo("plain");
    }

    @Test
    void shapesThatCannotTravelAreRefusedNamingTheMethod()
    {
        assertThatThrownBy(() -> method(SuspendingMono.class, "item"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("suspends and returns a Mono");
        assertThatThrownBy(() -> method(FlowIntoAValue.class, "total"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("streams a parameter and returns int");
        assertThatThrownBy(() -> method(NestedFlow.class, "nested"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nests a Flow");
    }
}
