package io.xio.ledger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** {@link LedgerFailuresContract} on PostgreSQL, the machine's own ({@link LocalPostgres}). */
@ExtendWith(TestDatabase.OnPostgres.class)
class PostgresLedgerFailuresTest extends LedgerFailuresContract
{
    @Override
    boolean errorsAbortTheTransaction()
    {
        return true;
    }

    @Override
    boolean cutsWaitsByCancel()
    {
        return true;
    }

    @Test
    void aCancelThatHangsHoldsUpNoOtherCut() throws Exception
    {
        // Two claims wait for keys held elsewhere; the first one's cancel hangs, as pgjdbc's does for up to 10 s when
        // its host is out of reach. Both ledgers share the JVM's timer.
        final CountDownLatch holding = new CountDownLatch(2);
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch cancelGate = new CountDownLatch(1);
        final ExactlyOnceExecution plain = ExactlyOnceExecution.of(ledger,
            new DataSourceTransactions(database().dataSource()));
        final Future<ExecutionOutcome> holdsA = threads.submit(() ->
            plain.execute("hang-a", false, WAIT, held("hang-a", holding, release)));
        final Future<ExecutionOutcome> holdsB = threads.submit(() ->
            plain.execute("hang-b", false, WAIT, held("hang-b", holding, release)));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        faulty.holdCancels(cancelGate);
        final Future<ExecutionOutcome> hanging = threads.submit(() ->
            execution.execute("hang-a", false, Duration.ofMillis(100), write("hang-a")));
        await().atMost(Duration.ofSeconds(30)).until(() -> faulty.cancels() > 0);

        final Future<ExecutionOutcome> other = threads.submit(() ->
            plain.execute("hang-b", false, Duration.ofMillis(300), write("hang-b")));
        assertThatThrownBy(() -> other.get(30, TimeUnit.SECONDS))
            .hasCauseInstanceOf(ExecutionInProgressException.class);

        cancelGate.countDown();
        assertThatThrownBy(() -> hanging.get(30, TimeUnit.SECONDS))
            .hasCauseInstanceOf(ExecutionInProgressException.class);
        release.countDown();
        assertThat(holdsA.get(30, TimeUnit.SECONDS).executed()).isTrue();
        assertThat(holdsB.get(30, TimeUnit.SECONDS).executed()).isTrue();
    }
}
