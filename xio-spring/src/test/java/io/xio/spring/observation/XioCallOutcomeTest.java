package io.xio.spring.observation;

import io.xio.engine.BackPressureException;
import io.xio.engine.ConnectionException;
import io.xio.engine.RemoteException;
import io.xio.engine.XioTimeoutException;
import io.xio.spring.client.ExactlyOnceUnsettledException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

class XioCallOutcomeTest
{
    @Test
    void failuresAsTheEngineReportsThemMapToOutcomes()
    {
        assertThat(XioCallOutcome.of(null)).isEqualTo(XioCallOutcome.SUCCESS);
        assertThat(XioCallOutcome.of(new XioTimeoutException("late"))).isEqualTo(XioCallOutcome.TIMEOUT);
        assertThat(XioCallOutcome.of(new CancellationException())).isEqualTo(XioCallOutcome.CANCELLED);
        assertThat(XioCallOutcome.of(new ConnectionException("down"))).isEqualTo(XioCallOutcome.CONNECTION_ERROR);
        assertThat(XioCallOutcome.of(new RemoteException("tcp://h:1/kv", 1, IllegalStateException.class.getName(),
            "x")))
            .isEqualTo(XioCallOutcome.SERVICE_ERROR);
        // A service that turned the call away (shutting down, queue full) is back-pressure on both sides.
        assertThat(XioCallOutcome.of(new RemoteException("tcp://h:1/kv", 1,
            RejectedExecutionException.class.getName(), "service 'kv' is shutting down")))
            .isEqualTo(XioCallOutcome.BACK_PRESSURE);
        // A server too busy to run it answers with the back-pressure status (2), which carries no text.
        assertThat(XioCallOutcome.of(new RemoteException("tcp://h:1/kv", 2, null, null)))
            .isEqualTo(XioCallOutcome.BACK_PRESSURE);
        assertThat(XioCallOutcome.of(new BackPressureException("full"))).isEqualTo(XioCallOutcome.BACK_PRESSURE);
        assertThat(XioCallOutcome.of(new IllegalArgumentException("bad argument"))).isEqualTo(XioCallOutcome.ERROR);
    }

    @Test
    void anExactlyOnceCallThatEndedUnsettledEndedAsItsLastAttemptDid()
    {
        assertThat(XioCallOutcome.of(new ExactlyOnceUnsettledException("k", new XioTimeoutException("late"))))
            .isEqualTo(XioCallOutcome.TIMEOUT);
        assertThat(XioCallOutcome.of(new ExactlyOnceUnsettledException("k", new ConnectionException("down"))))
            .isEqualTo(XioCallOutcome.CONNECTION_ERROR);
    }
}
