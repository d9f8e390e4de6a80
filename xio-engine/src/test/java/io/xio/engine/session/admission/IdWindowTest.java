package io.xio.engine.session.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class IdWindowTest
{
    @Test
    void oneSlowIdHoldsTheWindowUntilItFinishesThenItSlidesPastEverythingDone()
    {
        final IdWindow window = new IdWindow(8);
        for (long id = 2; id <= 8; id++)
        {
            assertThat(window.admits(id)).isTrue();
            window.finished(id);
        }
        assertThat(window.floor()).isEqualTo(1);
        assertThat(window.admits(8)).isTrue();
        assertThat(window.admits(9)).as("9 - 1 spans the whole window").isFalse();
        window.finished(1);
        assertThat(window.floor()).isEqualTo(9);
        assertThat(window.admits(16)).isTrue();
        assertThat(window.admits(17)).isFalse();
    }

    @Test
    void narrowsToAPeersSmallerWindow()
    {
        final IdWindow window = new IdWindow(8);
        window.limit(4);
        assertThat(window.admits(4)).isTrue();
        assertThat(window.admits(5)).isFalse();
        window.limit(64);
        assertThat(window.admits(5)).as("never widens past its own size").isFalse();
    }
}
