package io.xio.spring.autoconfigure.sample.errors.api;

/** The checked exception {@link Accounts#open} declares. */
public class AccountException extends Exception
{
    private static final long serialVersionUID = 1L;

    public AccountException(final String message)
    {
        super(message);
    }
}
