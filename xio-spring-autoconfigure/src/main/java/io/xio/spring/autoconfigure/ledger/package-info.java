/** Auto-configuration of the execution ledger that exactly-once methods run through. */
@NullMarked
package io.xio.spring.autoconfigure.ledger;

import org.jspecify.annotations.NullMarked;
