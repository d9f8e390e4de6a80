package io.xio.engine.memory;

import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code XioEngine.registerMemory}: the registry transports consult before they send from or expose a buffer. */
class RegisteredMemoryTest
{
    private final TestEngines engines = new TestEngines();

    @AfterEach
    void close()
    {
        engines.close();
    }

    @Test
    void registeredBuffersAreKnownUntilUnregistered()
    {
        final XioEngine engine = engines.start("registry");
        final java.nio.ByteBuffer buffer = engine.registerMemory(java.nio.ByteBuffer.allocateDirect(4096));
        final long start = org.agrona.BufferUtil.address(buffer);
        assertThat(RegisteredMemory.regionOf(start + 100, 200)).isEqualTo(start);
        assertThat(RegisteredMemory.regionOf(start + 4000, 200)).isEqualTo(-1); // runs past its end
        final long generation = RegisteredMemory.generation();
        assertThat(engine.unregisterMemory(buffer)).isTrue();
        assertThat(RegisteredMemory.generation()).isNotEqualTo(generation);
        assertThat(RegisteredMemory.regionOf(start + 100, 200)).isEqualTo(-1);
        assertThat(engine.unregisterMemory(buffer)).isFalse();
        assertThatThrownBy(() -> engine.unregisterMemory(java.nio.ByteBuffer.allocate(16)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("direct");
    }
}
