package io.xio.spring.autoconfigure.sample.exactlyonce.api;

import io.xio.annotation.XioMethod;

/** Money moved between accounts: writes that must happen once per call, whatever happens to the connection. */
public interface Transfers
{
    /** Writes a transfer row and answers with a receipt saying which execution of the method wrote it. */
    @XioMethod(exactlyOnce = true)
    Receipt transfer(String id, long amount);

    /** Writes a row, then throws an unchecked exception (declared, for the caller): it rolls back. */
    @XioMethod(exactlyOnce = true)
    Receipt failUnchecked(String id) throws IllegalStateException;

    /** Writes a row, then throws a checked exception: by Spring's rules the transaction commits. */
    @XioMethod(exactlyOnce = true)
    Receipt decline(String id) throws InsufficientFunds;

    /** Writes a row, then throws a checked exception its {@code @Transactional} rolls back for. */
    @XioMethod(exactlyOnce = true)
    Receipt declineAndRollBack(String id) throws InsufficientFunds;

    /** Writes a row, then waits until the server's test releases it. */
    @XioMethod(exactlyOnce = true)
    Receipt held(String id);

    /** A plain method: how many transfer rows have this id. */
    int rows(String id);

    /** A transfer that was written. */
    record Receipt(String id, long amount, int execution)
    {
    }

    /** A checked refusal, declared so that the caller rebuilds it. */
    class InsufficientFunds extends Exception
    {
        private static final long serialVersionUID = 1L;

        public InsufficientFunds(final String message)
        {
            super(message);
        }
    }
}
