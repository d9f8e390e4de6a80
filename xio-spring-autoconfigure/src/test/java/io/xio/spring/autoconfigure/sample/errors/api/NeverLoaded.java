package io.xio.spring.autoconfigure.sample.errors.api;

/** Named by a peer in a failure; a client that initialized it would trip {@link Failures#NEVER_LOADED_INITIALIZED}. */
public class NeverLoaded extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    static
    {
        Failures.NEVER_LOADED_INITIALIZED.incrementAndGet();
    }

    public NeverLoaded(final String message)
    {
        super(message);
    }
}
