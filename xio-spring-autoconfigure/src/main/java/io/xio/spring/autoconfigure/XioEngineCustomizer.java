package io.xio.spring.autoconfigure;

import io.xio.engine.XioEngine;

/** Tunes the engine builder after the properties were applied; define beans of it, in {@code @Order}. */
@FunctionalInterface
public interface XioEngineCustomizer
{
    void customize(XioEngine.Builder builder);
}
