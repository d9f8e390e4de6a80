package io.xio.spring.kotlin;

import io.xio.spring.method.ServiceMethod;
import kotlin.Metadata;
import kotlin.coroutines.Continuation;
import kotlinx.coroutines.flow.Flow;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** A missing Kotlin library fails as the proxy or service is made, naming the library. */
class KotlinDependenciesTest
{
    @Metadata
    interface Suspending
    {
        Object item(String id, Continuation<? super String> continuation);
    }

    @Metadata
    interface Streaming
    {
        Flow<String> items(int count);
    }

    interface Plain
    {
        String item(String id);
    }

    private static List<ServiceMethod> methods(final Class<?> api)
    {
        return Arrays.stream(api.getMethods()).map(method -> ServiceMethod.of(method, api)).toList();
    }

    /** A class loader that does not find the classes whose names start with {@code hidden}. */
    private static ClassLoader without(final String hidden)
    {
        return new ClassLoader(KotlinDependenciesTest.class.getClassLoader())
        {
            @Override
            protected Class<?> loadClass(final String name, final boolean resolve) throws ClassNotFoundException
            {
                if (name.startsWith(hidden))
                {
                    throw new ClassNotFoundException(name);
                }
                return super.loadClass(name, resolve);
            }
        };
    }

    @Test
    void aSuspendingServiceWithoutKotlinReflectFailsNamingIt()
    {
        assertThatIllegalStateException().isThrownBy(() -> KotlinDependencies.check(methods(Suspending.class), true,
            "service 'items'", without("kotlin.reflect."))).withMessageContaining("service 'items'")
            .withMessageContaining("org.jetbrains.kotlin:kotlin-reflect");
        // A client calls a suspend function without kotlin-reflect.
        assertThatCode(() -> KotlinDependencies.check(methods(Suspending.class), false, "client",
            without("kotlin.reflect."))).doesNotThrowAnyException();
    }

    @Test
    void aFlowWithoutTheCoroutinesReactorBridgeFailsNamingIt()
    {
        assertThatIllegalStateException().isThrownBy(() -> KotlinDependencies.check(methods(Streaming.class), false,
            "client Items", without("kotlinx.coroutines.reactor."))).withMessageContaining("client Items")
            .withMessageContaining("org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
    }

    @Test
    void methodsWithoutCoroutinesNeedNeither()
    {
        assertThatCode(() -> KotlinDependencies.check(methods(Plain.class), true, "service 'plain'",
            without("kotlin"))).doesNotThrowAnyException();
    }
}
