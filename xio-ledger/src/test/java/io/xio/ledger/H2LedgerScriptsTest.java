package io.xio.ledger;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link LedgerScriptsContract} on H2, in memory. */
@ExtendWith(TestDatabase.OnH2.class)
class H2LedgerScriptsTest extends LedgerScriptsContract
{
}
