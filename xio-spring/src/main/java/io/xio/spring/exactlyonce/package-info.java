/**
 * Exactly-once methods in a Spring application: each call of an {@code @XioMethod(exactlyOnce = true)} method runs
 * in the application's transaction, with its idempotency key and answer in the execution ledger ({@code xio-ledger})
 * of the same transaction. Needs {@code xio-ledger}, {@code spring-tx} and {@code spring-jdbc}, which an application
 * without such methods need not have.
 */
@NullMarked
package io.xio.spring.exactlyonce;

import org.jspecify.annotations.NullMarked;
