package io.xio.ledger;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * What a database error says about a transaction, read from the {@link SQLException}s among an error and its
 * causes. Stateless; any thread.
 */
final class DatabaseFailures
{
    private DatabaseFailures()
    {
    }

    /**
     * Whether {@code error} is, or was caused by, a database error. Such an error is never a call's answer: the
     * database may have ended the transaction already (PostgreSQL aborts it on any error, H2 rolls back a deadlock's
     * victim), so whatever the work meant to store cannot commit with it.
     */
    static boolean isDatabaseError(final Throwable error)
    {
        final Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable cause = error; cause != null && seen.add(cause); cause = cause.getCause())
        {
            if (cause instanceof SQLException)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a database error in {@code error} (itself, its causes or their chained exceptions) is one that
     * ends a transaction without settling anything and may well pass when tried again: a transaction rolled back
     * (SQLState class 40: serialization failure, deadlock), a connection lost (class 08), an operator's or a
     * timeout's intervention (class 57: a cancelled statement, a server shutting down), a lock not had in time
     * (PostgreSQL's {@code 55P03}, H2's {@code HYT00}), or what JDBC itself calls transient or recoverable.
     */
    static boolean isTransient(final Throwable error)
    {
        final Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        final Deque<Throwable> pending = new ArrayDeque<>();
        pending.add(error);
        while (!pending.isEmpty())
        {
            final Throwable next = pending.poll();
            if (!seen.add(next))
            {
                continue;
            }
            if (next instanceof SQLException sql)
            {
                if (transientState(sql))
                {
                    return true;
                }
                if (sql.getNextException() != null)
                {
                    pending.add(sql.getNextException());
                }
            }
            if (next.getCause() != null)
            {
                pending.add(next.getCause());
            }
        }
        return false;
    }

    private static boolean transientState(final SQLException error)
    {
        if (error instanceof SQLTransientException || error instanceof SQLRecoverableException)
        {
            return true;
        }
        final String state = error.getSQLState();
        return state != null && (state.startsWith("40") || state.startsWith("08") || state.startsWith("57") ||
            "55P03".equals(state) || "HYT00".equals(state));
    }
}
