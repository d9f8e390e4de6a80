package io.xio.engine;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Limits are values: built from the defaults one setting at a time, checked together, compared by content. */
class LimitsTest
{
    @Test
    void aBuilderStartsFromTheDefaultsAndChangesOnlyWhatItSets()
    {
        final Limits limits = Limits.builder().maxInFlight(16).dedupWindow(16).writeStallTimeout(Duration.ofSeconds(3))
            .build();

        assertThat(limits.maxInFlight()).isEqualTo(16);
        assertThat(limits.dedupWindow()).isEqualTo(16);
        assertThat(limits.writeStallTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(limits.maxMessageBytes()).isEqualTo(Limits.DEFAULT.maxMessageBytes());
        assertThat(limits.maxSessions()).isEqualTo(Limits.DEFAULT.maxSessions());
        assertThat(Limits.builder().build()).isEqualTo(Limits.DEFAULT).hasSameHashCodeAs(Limits.DEFAULT);
    }

    @Test
    void limitsWithTheSameSettingsAreEqualHowEverTheyWereMade()
    {
        final Limits byBuilder = Limits.DEFAULT.toBuilder().maxSegments(8).build();
        final Limits byWither = Limits.DEFAULT.withMaxSegments(8);

        assertThat(byBuilder).isEqualTo(byWither).hasSameHashCodeAs(byWither).isNotEqualTo(Limits.DEFAULT);
        assertThat(byBuilder.toString()).contains("maxSegments=8").isEqualTo(byWither.toString());
    }

    @Test
    void settingsThatContradictEachOtherFailAtBuildNamingThem()
    {
        assertThatThrownBy(() -> Limits.builder().maxInFlight(4096).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("dedupWindow").hasMessageContaining("maxInFlight");
        assertThatThrownBy(() -> Limits.builder().dedupWindow(3000).build())
            .hasMessageContaining("dedupWindow must be a power of two");
        assertThatThrownBy(() -> Limits.builder().handshakeTimeout(Duration.ZERO).build())
            .hasMessageContaining("handshakeTimeout must be positive");
    }

    @Test
    void theWithersKeepTheirCompanionsInStepWhereABuilderLeavesThatToTheCaller()
    {
        // withMaxInFlight widens the dedup window to fit; a builder's maxInFlight alone does not.
        assertThat(Limits.DEFAULT.withMaxInFlight(4096).dedupWindow()).isEqualTo(4096);
        assertThat(Limits.DEFAULT.withMaxQueuedBytes(128 << 20).maxUnsentBytes()).isEqualTo(128L << 20);
    }
}
