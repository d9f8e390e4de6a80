package io.xio.benchmarks.ledger;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The exactly-once cost benchmark on H2 with short windows: every case of both sets measured (the Spring pair through
 * its two contexts), the rows checked, nothing left.
 */
class LedgerCostTest
{
    @Test
    void aSmokeRunOnH2MeasuresEveryCaseChecksTheRowsAndDeletesItsDatabase() throws Exception
    {
        final List<Path> before = h2Directories();
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();

        LedgerCost.run(new String[] {"--smoke --databases h2 --threads 1,2"},
            new PrintStream(printed, true, StandardCharsets.UTF_8));

        final String table = printed.toString(StandardCharsets.UTF_8);
        for (final String threads : new String[] {"1", "2"})
        {
            assertThat(table).containsPattern("(?m)^ +" + threads + " plain transaction +- ")
                .containsPattern("(?m)^ +" + threads + " control: key row by hand .* \\d\\.\\d\\d \\[")
                .containsPattern("(?m)^ +" + threads + " exactly-once, first use .* \\d\\.\\d\\d \\[")
                .containsPattern("(?m)^ +" + threads + " exactly-once, retry .* \\d\\.\\d\\d \\[")
                .containsPattern("(?m)^ +" + threads + " xio, @Transactional +- ")
                .containsPattern("(?m)^ +" + threads + " xio, exactly-once +INSERT .* \\d\\.\\d\\d \\[");
        }
        assertThat(table).contains("the database's rows match the calls made");
        assertThat(h2Directories()).isEqualTo(before);
    }

    @Test
    void anUnknownOptionIsRefusedNamingTheOptions()
    {
        assertThatThrownBy(() -> LedgerCost.run(new String[] {"--repetitions 3"}, System.out))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown option --repetitions")
            .hasMessageContaining("--reps N");
        assertThatThrownBy(() -> LedgerCost.run(new String[] {"--databases h2,oracle"}, System.out))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not oracle");
        assertThatThrownBy(() -> LedgerCost.run(new String[] {"--sets jpa"}, System.out))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("--sets takes ledger and spring, not jpa");
    }

    @Test
    void theSpringSetRunsAloneWithItsBaselineFirst() throws Exception
    {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();

        LedgerCost.run(new String[] {"--smoke --databases h2 --threads 1 --sets spring"},
            new PrintStream(printed, true, StandardCharsets.UTF_8));

        final String table = printed.toString(StandardCharsets.UTF_8);
        assertThat(table).containsPattern("(?m)^ +1 xio, @Transactional +- ")
            .containsPattern("(?m)^ +1 xio, exactly-once +INSERT ").doesNotContain("plain transaction")
            .contains("the database's rows match the calls made");
    }

    private static List<Path> h2Directories() throws IOException
    {
        try (Stream<Path> paths = Files.list(Path.of(System.getProperty("java.io.tmpdir"))))
        {
            return paths.filter(path -> path.getFileName().toString().startsWith("xio-ledger-cost-h2-")).sorted()
                .toList();
        }
    }
}
