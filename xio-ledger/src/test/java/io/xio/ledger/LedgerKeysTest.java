package io.xio.ledger;

import org.junit.jupiter.api.Test;

import java.security.Principal;

import static org.assertj.core.api.Assertions.assertThat;

class LedgerKeysTest
{
    private static final Principal ALICE = () -> "alice";
    private static final Principal BOB = () -> "bob";

    @Test
    void aKeyIsKeptApartByOperationAndByCallerAndIsTheSameForTheSameCall()
    {
        final String key = LedgerKeys.scoped("transfers/transfer", ALICE, "order-1");

        assertThat(LedgerKeys.scoped("transfers/transfer", ALICE, "order-1")).isEqualTo(key);
        assertThat(LedgerKeys.scoped("transfers/decline", ALICE, "order-1")).isNotEqualTo(key);
        assertThat(LedgerKeys.scoped("transfers/transfer", BOB, "order-1")).isNotEqualTo(key);
        assertThat(LedgerKeys.scoped("transfers/transfer", null, "order-1")).isNotEqualTo(key);
        assertThat(LedgerKeys.scoped("transfers/transfer", ALICE, "order-2")).isNotEqualTo(key);
    }

    @Test
    void partsDoNotRunIntoEachOther()
    {
        assertThat(LedgerKeys.scoped("a", null, "bc")).isNotEqualTo(LedgerKeys.scoped("ab", null, "c"));
    }

    @Test
    void aScopedKeyFitsTheLedgersColumn()
    {
        assertThat(LedgerKeys.scoped("x".repeat(1000), ALICE, "k".repeat(128))).hasSize(43)
            .matches("[A-Za-z0-9_-]+");
    }
}
