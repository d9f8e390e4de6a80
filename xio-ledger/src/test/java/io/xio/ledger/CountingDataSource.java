package io.xio.ledger;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * A data source that counts the statements executed through it: the SQL of each, in the order they were started
 * (when they start, so a statement still waiting in the database shows). A thin proxy over the connections and
 * statements of another data source; everything else passes through. Thread-safe.
 */
public final class CountingDataSource extends InterceptingDataSource
{
    private final List<String> started = new ArrayList<>();

    public CountingDataSource(final DataSource target)
    {
        super(target);
    }

    /** The SQL of every statement started since the last {@link #clear()}, in order. */
    public List<String> statements()
    {
        synchronized (started)
        {
            return List.copyOf(started);
        }
    }

    /** How many statements started since the last {@link #clear()} contain {@code text} (case-insensitive). */
    public long count(final String text)
    {
        final String wanted = text.toLowerCase(java.util.Locale.ROOT);
        return statements().stream().filter(sql -> sql.toLowerCase(java.util.Locale.ROOT).contains(wanted)).count();
    }

    public void clear()
    {
        synchronized (started)
        {
            started.clear();
        }
    }

    @Override
    void beforeStatementCall(final Method method, final String sql)
    {
        if (executes(method))
        {
            synchronized (started)
            {
                started.add(sql != null ? sql : "batch");
            }
        }
    }
}
