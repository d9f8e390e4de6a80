package io.xio.spring.client;

import io.xio.engine.IdempotencyKeys;
import io.xio.engine.Metadata;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every subscription to one Mono of an exactly-once method carries the Mono's key: the first as the first use of a key
 * made for the call, each later one saying attempts went before; another Mono has another key.
 */
class MonoCallKeyTest
{
    @Test
    void everySubscriptionCarriesTheMonosKeyOnlyTheFirstAsItsFirstUse()
    {
        final MonoCallKey mono = new MonoCallKey();
        final Metadata first = mono.next();
        final Metadata second = mono.next();
        final Metadata third = mono.next();

        assertThat(IdempotencyKeys.of(first)).isNotNull();
        assertThat(IdempotencyKeys.firstUse(first)).isTrue();
        assertThat(IdempotencyKeys.forFirstAttempt(first)).as("sent as the key made for the call").isSameAs(first);
        assertThat(java.util.List.of(second, third)).extracting(IdempotencyKeys::of)
            .containsOnly(IdempotencyKeys.of(first));
        assertThat(java.util.List.of(second, third)).extracting(IdempotencyKeys::previousAttempts)
            .containsExactly(1, 2);
        assertThat(IdempotencyKeys.forFirstAttempt(second)).as("a key that may have been sent before")
            .isSameAs(second);
        assertThat(IdempotencyKeys.of(new MonoCallKey().next())).as("another Mono, another call")
            .isNotEqualTo(IdempotencyKeys.of(first));
    }
}
