package io.xio.engine.session.connection;

import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.List;

/**
 * This side's set-ups and attaches on one connection that wait for their answers, by token. One whose caller gave
 * up stays as {@link #LATE}, so that its answer is still handled: a late acceptance is closed again at once. Owned
 * by the connection's context thread.
 */
final class HandshakeCalls
{
    private static final Connection.Call LATE = new Connection.Call()
    {
        @Override
        public void onAnswer(final Connection connection, final Frame frame)
        {
            if (frame.type() == FrameType.SETUP_ACCEPT || frame.type() == FrameType.ATTACH_ACCEPT)
            {
                connection.closeUnwanted(frame.sessionId());
                return;
            }
            connection.releaseIfUnused();
        }

        @Override
        public void onFailed(final Connection connection, final Throwable cause)
        {
        }
    };

    private final Long2ObjectHashMap<Connection.Call> calls = new Long2ObjectHashMap<>();
    private long nextToken;

    /** Waits for the answer to {@code call}: the token its frame carries. */
    long add(final Connection.Call call)
    {
        final long token = ++nextToken;
        calls.put(token, call);
        return token;
    }

    /** The caller gave up (timed out): its late answer is handled as {@link #LATE}. */
    void forget(final long token)
    {
        if (calls.containsKey(token))
        {
            calls.put(token, LATE);
        }
    }

    /** The call that {@code token} answers, no longer waiting; null for a token never given or answered already. */
    Connection.Call take(final long token)
    {
        return calls.remove(token);
    }

    boolean isEmpty()
    {
        return calls.isEmpty();
    }

    /** Whether no caller waits here any more: every call is answered or given up. */
    boolean onlyLate()
    {
        for (final Connection.Call call : calls.values())
        {
            if (call != LATE)
            {
                return false;
            }
        }
        return true;
    }

    /** The connection is gone: every call waiting fails with {@code cause}. */
    void failAll(final Connection connection, final Throwable cause)
    {
        final List<Connection.Call> waiting = new ArrayList<>(calls.values());
        calls.clear();
        waiting.forEach(call -> call.onFailed(connection, cause));
    }
}
