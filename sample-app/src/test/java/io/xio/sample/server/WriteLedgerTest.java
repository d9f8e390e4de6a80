package io.xio.sample.server;

import io.xio.sample.SampleProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class WriteLedgerTest
{
    @TempDir
    Path dir;

    @Test
    void countsEachIdOnceAndASecondRunAsMoreThanOnce() throws Exception
    {
        try (WriteLedger ledger = new WriteLedger(new SampleProperties()))
        {
            assertThat(ledger.execute("app-1", 0)).isEqualTo(1);
            assertThat(ledger.execute("app-1", 1)).isEqualTo(1);
            assertThat(ledger.execute("app-2", 0)).isEqualTo(1);
            assertThat(ledger.execute("app-1", 1)).isEqualTo(2);
            assertThat(ledger.execute("app-1", 1)).isEqualTo(2);
            final WriteLedger.Counts counts = ledger.counts();
            assertThat(counts.executed()).isEqualTo(3);
            assertThat(counts.executedMoreThanOnce()).isEqualTo(1);
            assertThat(counts.clients()).containsEntry("app-1", new WriteLedger.ClientCounts(2, 1))
                .containsEntry("app-2", new WriteLedger.ClientCounts(1, 0));
            assertThat(counts.journal()).isNull();
        }
    }

    @Test
    void theJournalKeepsEveryExecutionAcrossARestartAndSkipsATornLine() throws Exception
    {
        final SampleProperties properties = new SampleProperties();
        final Path journal = dir.resolve("writes.log");
        properties.getCluster().setJournal(journal);
        try (WriteLedger ledger = new WriteLedger(properties))
        {
            ledger.execute("app-1", 7);
            ledger.execute("app-1", 8);
            ledger.execute("app-1", 7);
        }
        assertThat(Files.readAllLines(journal)).containsExactly("app-1 7", "app-1 8", "app-1 7");
        Files.writeString(journal, "app-1 9\napp-", java.nio.file.StandardOpenOption.APPEND);
        try (WriteLedger ledger = new WriteLedger(properties))
        {
            assertThat(ledger.counts().executed()).isEqualTo(3);
            assertThat(ledger.counts().executedMoreThanOnce()).isEqualTo(1);
            assertThat(ledger.execute("app-1", 8)).isEqualTo(2);
            assertThat(ledger.counts().journal()).isEqualTo(journal.toString());
        }
    }

    @Test
    void refusesNamesAndSequencesThatWouldGrowItWithoutBoundAndCountsNothingForThem() throws Exception
    {
        try (WriteLedger ledger = new WriteLedger(new SampleProperties()))
        {
            // A huge sequence would allocate its bits; a flood of names, a map entry each.
            assertThatIllegalArgumentException().isThrownBy(() -> ledger.execute("app-1", WriteLedger.MAX_SEQUENCE))
                .withMessageContaining("sequence");
            assertThatIllegalArgumentException().isThrownBy(() -> ledger.execute("app-1", -1));
            assertThatIllegalArgumentException().isThrownBy(() -> ledger.execute("x".repeat(65), 0))
                .withMessageContaining("client name");
            assertThatIllegalArgumentException().isThrownBy(() -> ledger.execute("a b", 0));
            assertThatIllegalArgumentException().isThrownBy(() -> ledger.execute(null, 0));
            for (int i = 0; i < WriteLedger.MAX_CLIENTS; i++)
            {
                ledger.execute("app-" + i, WriteLedger.MAX_SEQUENCE - 1);
            }
            assertThatIllegalArgumentException().isThrownBy(() -> ledger.execute("one-more", 0))
                .withMessageContaining("16 clients");
            assertThat(ledger.counts().executed()).isEqualTo(WriteLedger.MAX_CLIENTS);
            assertThat(ledger.counts().clients()).hasSize(WriteLedger.MAX_CLIENTS).doesNotContainKey("one-more");
        }
    }

    @Test
    void aJournalThatCannotBeOpenedFailsStartUpNamingTheProperty() throws Exception
    {
        final SampleProperties properties = new SampleProperties();
        properties.getCluster().setJournal(dir.resolve("missing-dir").resolve("writes.log"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new WriteLedger(properties))
            .hasMessageContaining("sample.cluster.journal");
        assertThat(List.of(dir.toFile().list())).isEmpty();
    }
}
