package io.xio.ledger;

/**
 * What an exactly-once execution answered, and whether it ran the work now ({@link #executed()}) or gave the answer
 * an earlier attempt of the same key had committed ({@link #replayed()}): for metrics and observation. When the work
 * ran now and threw an error whose transaction committed all the same, {@link #thrown()} is that error and the
 * answer its stored form. Immutable; any thread.
 */
public final class ExecutionOutcome
{
    private final LedgerAnswer answer;
    private final boolean replayed;
    private final Throwable thrown;

    private ExecutionOutcome(final LedgerAnswer answer, final boolean replayed, final Throwable thrown)
    {
        this.answer = answer;
        this.replayed = replayed;
        this.thrown = thrown;
    }

    /** The work ran in this attempt and committed {@code answer}; {@code thrown} is what it threw, or null. */
    static ExecutionOutcome executed(final LedgerAnswer answer, final Throwable thrown)
    {
        return new ExecutionOutcome(answer, false, thrown);
    }

    /** An earlier attempt had committed {@code answer}; the work did not run in this one. */
    static ExecutionOutcome replayed(final LedgerAnswer answer)
    {
        return new ExecutionOutcome(answer, true, null);
    }

    /** The answer: what the work committed now, or what an earlier attempt had. */
    public LedgerAnswer answer()
    {
        return answer;
    }

    /** Whether the answer is an earlier attempt's, given without running the work. */
    public boolean replayed()
    {
        return replayed;
    }

    /** Whether the work ran in this attempt (and committed). */
    public boolean executed()
    {
        return !replayed;
    }

    /**
     * The error the work threw in this attempt when its transaction committed all the same (the rollback rule said
     * so), for the caller to rethrow as it is; null when the work returned, or when the answer was replayed (a
     * replayed error exists only as {@link #answer()}'s bytes).
     */
    public Throwable thrown()
    {
        return thrown;
    }

    @Override
    public String toString()
    {
        return (replayed ? "replayed " : "executed ") + answer;
    }
}
