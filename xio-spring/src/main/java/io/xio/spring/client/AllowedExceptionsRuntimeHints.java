package io.xio.spring.client;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The hints of xio's own reflection on the client side: the JDK exceptions a client rebuilds from any server's
 * answer are made through their public constructors. Registered in {@code META-INF/spring/aot.factories}; runs
 * during AOT processing.
 */
class AllowedExceptionsRuntimeHints implements RuntimeHintsRegistrar
{
    @Override
    public void registerHints(final RuntimeHints hints, final @Nullable ClassLoader classLoader)
    {
        AllowedExceptions.JDK.values().forEach(type ->
            hints.reflection().registerType(type, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS));
    }
}
