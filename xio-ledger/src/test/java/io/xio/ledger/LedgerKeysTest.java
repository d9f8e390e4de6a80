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
    void aCallerIsKnownByItsPrincipalsNameSoThatTheKeyIsTheSameOnEveryServerAndAfterARestart()
    {
        // Two lambdas: two classes, whose names carry an id of this JVM's making, as two servers' acceptors would.
        final Principal acceptedHere = () -> "ann";
        final Principal acceptedElsewhere = () -> "ann";
        assertThat(acceptedHere.getClass()).isNotEqualTo(acceptedElsewhere.getClass());

        assertThat(LedgerKeys.scoped("transfers/transfer", acceptedHere, "order-1"))
            .isEqualTo(LedgerKeys.scoped("transfers/transfer", acceptedElsewhere, "order-1"));
        assertThat(LedgerKeys.scoped("transfers/transfer", () -> "", "order-1")).as("named, not anonymous")
            .isNotEqualTo(LedgerKeys.scoped("transfers/transfer", null, "order-1"));
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
