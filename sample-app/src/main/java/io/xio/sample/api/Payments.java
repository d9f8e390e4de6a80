package io.xio.sample.api;

import io.xio.annotation.XioMethod;

/**
 * Payments of orders, each made once whatever happens to its call: {@link #pay} is exactly-once, so its server runs
 * it in a database transaction that also records the call's idempotency key and answer (xio's execution ledger), and
 * a later call with the same key gets that answer without running again.
 */
public interface Payments
{
    /** Records a payment of {@code cents} for {@code order}; its receipt names the payment row written. */
    @XioMethod(exactlyOnce = true)
    Receipt pay(String order, long cents);

    /** What the payments table holds, and how often {@link #pay} ran on this server. */
    Totals totals();

    /** A payment that was recorded, {@code payment} being its row's id. */
    record Receipt(String order, long cents, long payment)
    {
    }

    /** The table's rows and their sum, and the runs of {@link #pay} that wrote them. */
    record Totals(long rows, long cents, long executions)
    {
    }
}
