package io.xio.ledger;

import java.util.regex.Pattern;

/**
 * The ledger's table under one name, and the statements on it. A name is an SQL identifier, optionally with its
 * schema ({@code ledger} or {@code billing.ledger}), written unquoted into the statements, so it is checked here:
 * it never comes from a peer, but a typo should say what is wrong before it reaches the database. Immutable.
 */
final class LedgerTable
{
    /** Letters, digits and underscores, a letter or underscore first; short enough for the index name after it. */
    private static final Pattern PART = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");
    private static final String INDEX_SUFFIX = "_expires_at";

    final String name;
    final String record;
    final String claim;
    final String complete;
    final String find;
    final String deleteExpired;

    LedgerTable(final String name)
    {
        this.name = check(name);
        record = "INSERT INTO " + name +
            " (idempotency_key, outcome, answer, created_at, expires_at) VALUES (?, ?, ?, ?, ?)";
        claim = "INSERT INTO " + name + " (idempotency_key, created_at, expires_at) VALUES (?, ?, ?)";
        complete = "UPDATE " + name + " SET outcome = ?, answer = ? WHERE idempotency_key = ? AND outcome IS NULL";
        find = "SELECT outcome, answer FROM " + name + " WHERE idempotency_key = ?";
        // Through the expiry index, oldest first: a batch never scans the live entries.
        deleteExpired = "DELETE FROM " + name + " WHERE idempotency_key IN (SELECT idempotency_key FROM " + name +
            " WHERE expires_at < ? ORDER BY expires_at LIMIT ?)";
    }

    /**
     * {@code name} if it is a table name the ledger takes: an SQL identifier of up to 48 characters
     * ({@code A-Z a-z 0-9 _}, not starting with a digit), optionally after a schema name of the same form and a dot.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static String check(final String name)
    {
        final int dot = name.indexOf('.');
        final boolean valid = dot < 0 ? PART.matcher(name).matches() :
            PART.matcher(name.substring(0, dot)).matches() && PART.matcher(name.substring(dot + 1)).matches();
        if (!valid)
        {
            throw new IllegalArgumentException("a ledger table name is an SQL identifier, optionally after its " +
                "schema and a dot: up to 48 of A-Z a-z 0-9 _, not starting with a digit; not '" + name + "'");
        }
        return name;
    }

    /** The table's name without its schema. */
    String simpleName()
    {
        return name.substring(name.indexOf('.') + 1);
    }

    /** The schema named with the table, or null. */
    String schema()
    {
        final int dot = name.indexOf('.');
        return dot < 0 ? null : name.substring(0, dot);
    }

    /** The expiry index's name, without a schema. */
    String indexName()
    {
        return simpleName() + INDEX_SUFFIX;
    }
}
