package io.xio.engine.session;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The receiver's memory of recent request ids of one session and direction, so that a request retransmitted
 * after a connection failure is never executed twice: it gets the original response instead (when that was
 * small enough to keep) or a RESPONSE_LOST status. A ring of slots indexed by id; each slot's state word is
 * {@code id << 2 | state}, changed by CAS, so the contexts of a session's connections share it without locks.
 * A slot whose request is still executing is never reused: the newer id is then refused as back-pressure.
 */
final class DedupWindow
{
    /** Largest request id the state word can hold. */
    static final long MAX_ID = (1L << 61) - 1;
    static final int FREE = 0;
    static final int EXECUTING = 1;
    static final int DONE = 2;

    /** What {@link #begin} found. */
    enum Verdict
    {
        NEW, EXECUTING, DONE, TOO_OLD, FULL
    }

    private final int mask;
    private final AtomicLongArray states;
    private final AtomicReferenceArray<Object> calls;
    private final AtomicReferenceArray<Retained> responses;

    /** A kept response: status, header then segments concatenated, and the segment lengths. */
    record Retained(int status, byte[] bytes, int headerLength, int[] segmentLengths)
    {
    }

    DedupWindow(final int capacity)
    {
        mask = capacity - 1;
        states = new AtomicLongArray(capacity);
        calls = new AtomicReferenceArray<>(capacity);
        responses = new AtomicReferenceArray<>(capacity);
    }

    /** Claims {@code id} for execution, or says why not. {@code call} is kept for cancels while executing. */
    Verdict begin(final long id, final Object call)
    {
        final int slot = (int)(id & mask);
        while (true)
        {
            final long word = states.get(slot);
            final long slotId = word >>> 2;
            final int state = (int)(word & 3);
            if (state != FREE && slotId == id)
            {
                return state == EXECUTING ? Verdict.EXECUTING : Verdict.DONE;
            }
            if (state != FREE && slotId > id)
            {
                return Verdict.TOO_OLD;
            }
            if (state == EXECUTING)
            {
                return Verdict.FULL;
            }
            if (states.compareAndSet(slot, word, id << 2 | EXECUTING))
            {
                calls.set(slot, call);
                responses.set(slot, null);
                return Verdict.NEW;
            }
        }
    }

    /**
     * The executing call for {@code id}; spins the few instructions until {@link #begin}'s winner has
     * published it. Null once the call is done.
     */
    Object awaitCall(final long id)
    {
        final int slot = (int)(id & mask);
        final long executing = id << 2 | EXECUTING;
        while (states.get(slot) == executing)
        {
            final Object call = calls.get(slot);
            if (call != null)
            {
                return call;
            }
            Thread.onSpinWait();
        }
        return null;
    }

    /** Whether {@code id} is in the window and done. */
    boolean isDone(final long id)
    {
        return states.get((int)(id & mask)) == (id << 2 | DONE);
    }

    /** The executing call registered for {@code id}, or null. */
    Object call(final long id)
    {
        final int slot = (int)(id & mask);
        final Object call = calls.get(slot);
        return states.get(slot) == (id << 2 | EXECUTING) ? call : null;
    }

    /** Marks {@code id} done, keeping {@code response} (may be null) for retransmits. */
    void complete(final long id, final Retained response)
    {
        final int slot = (int)(id & mask);
        responses.set(slot, response);
        calls.set(slot, null);
        states.compareAndSet(slot, id << 2 | EXECUTING, id << 2 | DONE);
    }

    /** Forgets {@code id}, claimed but refused before it ran, so a retransmit of it may run. */
    void abandon(final long id)
    {
        final int slot = (int)(id & mask);
        calls.set(slot, null);
        states.compareAndSet(slot, id << 2 | EXECUTING, FREE);
    }

    /** The response kept for {@code id}, or null when none was kept or the slot moved on. */
    Retained retained(final long id)
    {
        final int slot = (int)(id & mask);
        final long done = id << 2 | DONE;
        if (states.get(slot) != done)
        {
            return null;
        }
        final Retained response = responses.get(slot);
        return states.get(slot) == done ? response : null;
    }
}
