package io.xio.spring.autoconfigure.reflection;

import io.xio.spring.reflection.XioReflection;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/** The runtime hints the reflection auto-configuration imports. */
class XioReflectionHintsTest
{
    @Test
    void aNativeImageIsToldAboutTheDescriptionRecords()
    {
        final RuntimeHints hints = new RuntimeHints();
        new XioReflectionAutoConfiguration.DescriptionHints().registerHints(hints, getClass().getClassLoader());
        assertThat(RuntimeHintsPredicates.reflection().onType(XioReflection.MethodDescription.class)).accepts(hints);
    }
}
