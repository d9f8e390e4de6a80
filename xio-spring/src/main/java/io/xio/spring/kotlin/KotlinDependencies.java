package io.xio.spring.kotlin;

import io.xio.spring.method.ServiceMethod;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import java.util.Collection;

/**
 * Checks, as a client proxy or a service is made, that the libraries its Kotlin methods need are on the class path,
 * so a missing one fails the application's start with its coordinates rather than the first call. Loads no Kotlin
 * class itself. Stateless; any thread.
 */
public final class KotlinDependencies
{
    private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";
    private static final String KOTLIN_REFLECT = "kotlin.reflect.full.KClasses";

    private KotlinDependencies()
    {
    }

    /**
     * Fails if a method of {@code methods} {@link ServiceMethod#coroutines() uses coroutines} and
     * {@code kotlinx-coroutines-reactor} is missing, or, for a service ({@code service} true), a method suspends and
     * {@code kotlin-reflect} (which runs it) is missing.
     *
     * @param owner what the methods belong to, for the message (the interface or service)
     * @param loader the class loader to look in; null for the default one
     */
    public static void check(final Collection<ServiceMethod> methods, final boolean service, final String owner,
        final @Nullable ClassLoader loader)
    {
        for (final ServiceMethod method : methods)
        {
            if (method.coroutines() && !ClassUtils.isPresent(COROUTINES_REACTOR, loader))
            {
                throw new IllegalStateException(owner + " has Kotlin coroutines (" + method.method().getName() +
                    "), which need org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the class path");
            }
            if (service && method.suspending() && !ClassUtils.isPresent(KOTLIN_REFLECT, loader))
            {
                throw new IllegalStateException(owner + " has a suspend function (" + method.method().getName() +
                    "), which a service runs through org.jetbrains.kotlin:kotlin-reflect: add it to the class path");
            }
        }
    }
}
