package io.xio.engine.session.call;

import io.xio.engine.XioFuture;
import io.xio.engine.protocol.FrameType;
import io.xio.engine.protocol.SetupCodec;
import io.xio.engine.session.Futures;

import java.util.ArrayDeque;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The CANCELs a lane sent on its current connection and not yet answered, in the order sent, since the peer
 * answers each once and in that order; and who hears each answer: the futures it cancelled, and the range cancel
 * it is a part of. Owned by the lane's context thread.
 */
final class SentCancels
{
    private final Lane lane;
    private final int mineFlag;
    private final LongSupplier sessionId;
    private final ArrayDeque<SentCancel> sent = new ArrayDeque<>();

    /**
     * @param mineFlag the flag that marks this side's request ids on the wire
     * @param sessionId the session's id, known once it is set up
     */
    SentCancels(final Lane lane, final int mineFlag, final LongSupplier sessionId)
    {
        this.lane = lane;
        this.mineFlag = mineFlag;
        this.sessionId = sessionId;
    }

    /**
     * Asks the peer to abort our requests {@code first..last}; nobody waits to hear the count. False when the CANCEL
     * did not go out (the connection is closing).
     */
    boolean send(final long first, final long last)
    {
        return send(first, last, List.of(), null);
    }

    /**
     * Asks the peer to abort our requests {@code first..last}; its answer settles the outcome of {@code futures}
     * and a part of {@code range} (when not null), or, should the CANCEL not go out (false), they learn nothing was.
     */
    boolean send(final long first, final long last, final List<XioFuture<?>> futures, final RangeCancel range)
    {
        final SentCancel cancel = new SentCancel(first, last, futures, range);
        if (range != null)
        {
            range.partStarted();
        }
        if (lane.connection().sendControl(FrameType.CANCEL, mineFlag, sessionId.getAsLong(), first, 0,
            new SetupCodec.Writer().i64(last).toBytes()))
        {
            lane.fence.cancelSent(); // answered once each, in order
            sent.add(cancel);
            return true;
        }
        cancel.unanswered();
        return false;
    }

    /**
     * The peer answered a CANCEL of {@code first..last}, having aborted {@code aborted} calls: the oldest CANCEL
     * waiting here, since each is answered once and in order; an answer that is not to it is dropped.
     */
    void answered(final long first, final long last, final int aborted)
    {
        final SentCancel cancel = sent.peekFirst();
        if (cancel != null && cancel.first == first && cancel.last == last)
        {
            sent.pollFirst();
            cancel.answered(aborted);
        }
    }

    /** The CANCELs waiting for an answer will get none (the connection went): nothing is known to be aborted. */
    void dropAll()
    {
        SentCancel cancel;
        while ((cancel = sent.pollFirst()) != null)
        {
            cancel.unanswered();
        }
    }

    /** A CANCEL sent, and who hears its answer: the futures it cancelled, and the range cancel it is a part of. */
    private static final class SentCancel
    {
        final long first;
        final long last;
        private final List<XioFuture<?>> futures;
        private final RangeCancel range;

        SentCancel(final long first, final long last, final List<XioFuture<?>> futures, final RangeCancel range)
        {
            this.first = first;
            this.last = last;
            this.futures = futures;
            this.range = range;
        }

        /**
         * The peer aborted {@code aborted} calls of the range. That names no id, so a request is known to be aborted
         * only when the count covers every id of the range (a single cancel: when it is 1); else it is not known.
         */
        void answered(final int aborted)
        {
            final boolean all = aborted > 0 && aborted >= last - first + 1;
            for (final XioFuture<?> future : futures)
            {
                Futures.cancelAnswered(future, all);
            }
            if (range != null)
            {
                range.partDone(Math.max(0, aborted));
            }
        }

        /** No answer will come (the connection ended, or the CANCEL could not be queued). */
        void unanswered()
        {
            for (final XioFuture<?> future : futures)
            {
                Futures.cancelAnswered(future, false);
            }
            if (range != null)
            {
                range.partDone(0);
            }
        }
    }
}
