package io.xio.engine.session.admission;

import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.ProtocolViolationException;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The receiver's memory of recent request ids of one session and direction, so that a request retransmitted
 * after a connection failure is never executed twice: it gets the original response instead (when that was
 * small enough to copy, or held by reference until the requester acknowledged it: {@link HeldResponse}) or a
 * RESPONSE_LOST status. A ring of slots indexed by id; each slot's state word is
 * {@code id << 2 | state}, changed by CAS, so the contexts of a session's connections share it without locks.
 * A slot whose request is still executing is never reused: the newer id is then refused as back-pressure.
 * Slots come in segments of 64, each allocated when an id first falls into it, so a session costs memory in
 * proportion to the ids it used, up to the whole window: a flood of idle sessions holds a few bytes each.
 */
public final class DedupWindow
{
    /** Largest request id the state word can hold. */
    static final long MAX_ID = (1L << 61) - 1;
    static final int FREE = 0;
    static final int EXECUTING = 1;
    static final int DONE = 2;

    /** {@code id} as a peer's request id: ids count up from 1 and stay far below 2^62, the window's range. */
    public static long checkedId(final long id)
    {
        if (id < 1 || id > MAX_ID)
        {
            throw new ProtocolViolationException("request id " + id + " outside 1.." + MAX_ID);
        }
        return id;
    }

    /** What {@link #begin} found. */
    public enum Verdict
    {
        NEW, EXECUTING, DONE, TOO_OLD, FULL
    }

    private static final int SEGMENT_SHIFT = 6;

    private final int mask;
    private final int segmentMask;
    private final AtomicReferenceArray<Segment> segments;
    /** The session ended: responses held by reference are released, and none is held from now on. */
    private volatile boolean ended;

    @SuppressWarnings("rawtypes")
    private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<Segment, AtomicReferenceArray> HELD =
        java.util.concurrent.atomic.AtomicReferenceFieldUpdater.newUpdater(Segment.class, AtomicReferenceArray.class,
            "held");

    /** 64 slots (fewer in a smaller window): their state words, executing calls and kept responses. */
    private static final class Segment
    {
        final AtomicLongArray states;
        final AtomicReferenceArray<Object> calls;
        final Kept[] kept;
        /** Responses held by reference, by slot; made when the segment holds its first one. */
        volatile AtomicReferenceArray<HeldResponse> held;

        Segment(final int size)
        {
            states = new AtomicLongArray(size);
            calls = new AtomicReferenceArray<>(size);
            kept = new Kept[size];
        }
    }

    /**
     * A kept response as a resend uses it: status, header then segments concatenated, the segment lengths, and its
     * trailers (null when none).
     */
    public record Retained(int status, byte[] bytes, int headerLength, int[] segmentLengths, Metadata trailers)
    {
    }

    /**
     * One slot's kept response, reused by every id the slot holds, so keeping a response allocates nothing once
     * the arrays are large enough. Written only by the thread completing the slot's executing id, before the
     * state word says DONE; read by resends under a version check (a seqlock on the state word). An array grown
     * for a response above {@link #SMALL} bytes is given up at the next small one, so a window of many slots does
     * not pin its largest responses for the session's life.
     */
    static final class Kept
    {
        /** Responses up to this size are kept in an array that stays. */
        static final int SMALL = 4096;

        boolean present;
        int status;
        int length;
        int headerLength;
        int segmentCount;
        Metadata trailers;
        byte[] bytes = new byte[0];
        int[] segmentLengths = new int[0];

        /** Small sizes round up to a power of two (at least 64), so responses that vary a little share one array. */
        static int capacityFor(final int size)
        {
            return size > SMALL ? size : Math.max(64, Integer.highestOneBit(Math.max(1, size - 1)) << 1);
        }

        void keep(final int status, final Outbound response, final int size)
        {
            if (bytes.length < size || (bytes.length > SMALL && size <= SMALL))
            {
                bytes = new byte[capacityFor(size)];
            }
            final int count = response.segmentCount();
            if (segmentLengths.length < count)
            {
                segmentLengths = new int[count];
            }
            final ByteBuffer header = response.header();
            header.get(header.position(), bytes, 0, header.remaining());
            int at = header.remaining();
            for (int i = 0; i < count; i++)
            {
                final ByteBuffer segment = response.segment(i);
                final int n = segment.remaining();
                segment.get(segment.position(), bytes, at, n);
                segmentLengths[i] = n;
                at += n;
            }
            this.status = status;
            this.length = size;
            this.headerLength = header.remaining();
            this.segmentCount = count;
            // Sealed (read-only) when the call was answered, so kept as it is. Most responses have none.
            final Metadata metadata = response.metadata();
            this.trailers = metadata == null || metadata.isEmpty() ? null : metadata;
            this.present = true;
        }
    }

    public DedupWindow(final int capacity)
    {
        mask = capacity - 1;
        final int segmentSize = Math.min(capacity, 1 << SEGMENT_SHIFT);
        segmentMask = segmentSize - 1;
        segments = new AtomicReferenceArray<>(capacity / segmentSize);
    }

    /** The segment of {@code id}'s slot, or null while no id has fallen into it. */
    private Segment segment(final long id)
    {
        return segments.get((int)(id & mask) >>> SEGMENT_SHIFT);
    }

    /** The segment of {@code id}'s slot, allocated if need be (by whichever thread gets there first). */
    private Segment claimSegment(final long id)
    {
        final int index = (int)(id & mask) >>> SEGMENT_SHIFT;
        final Segment existing = segments.get(index);
        if (existing != null)
        {
            return existing;
        }
        final Segment fresh = new Segment(segmentMask + 1);
        return segments.compareAndSet(index, null, fresh) ? fresh : segments.get(index);
    }

    private int slot(final long id)
    {
        return (int)(id & segmentMask);
    }

    /** Claims {@code id} for execution, or says why not. {@code call} is kept for cancels while executing. */
    public Verdict begin(final long id, final Object call)
    {
        final Segment segment = claimSegment(id);
        final AtomicLongArray states = segment.states;
        final int slot = slot(id);
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
                segment.calls.set(slot, call);
                return Verdict.NEW;
            }
        }
    }

    /**
     * The executing call for {@code id}; spins the few instructions until {@link #begin}'s winner has
     * published it. Null once the call is done.
     */
    public Object awaitCall(final long id)
    {
        final Segment segment = segment(id);
        if (segment == null)
        {
            return null;
        }
        final int slot = slot(id);
        final long executing = id << 2 | EXECUTING;
        while (segment.states.get(slot) == executing)
        {
            final Object call = segment.calls.get(slot);
            if (call != null)
            {
                return call;
            }
            Thread.onSpinWait();
        }
        return null;
    }

    /** Whether {@code id} is in the window and done. */
    public boolean isDone(final long id)
    {
        final Segment segment = segment(id);
        return segment != null && segment.states.get(slot(id)) == (id << 2 | DONE);
    }

    /** The executing call registered for {@code id}, or null. */
    public Object call(final long id)
    {
        final Segment segment = segment(id);
        if (segment == null)
        {
            return null;
        }
        final int slot = slot(id);
        final Object call = segment.calls.get(slot);
        return segment.states.get(slot) == (id << 2 | EXECUTING) ? call : null;
    }

    /**
     * Marks {@code id} done, keeping a copy of {@code response} (may be null: nothing to keep) for retransmits
     * when it is at most {@code maxKept} bytes. Called once per id, by whichever thread answered it.
     */
    public void complete(final long id, final int status, final Outbound response, final int maxKept)
    {
        complete(id, status, response, maxKept, null);
    }

    /**
     * {@link #complete(long, int, Outbound, int)}, holding {@code held} (when not null) by reference for retransmits
     * instead of a copy, until {@link #acknowledge}, the slot's next id or {@link #releaseHeld}. Any response the
     * slot held for an older id is let go. False when {@code held} was not taken (the id is not executing here):
     * its hold is then still the caller's.
     */
    public boolean complete(final long id, final int status, final Outbound response, final int maxKept,
        final HeldResponse held)
    {
        final Segment segment = segment(id);
        final int slot = slot(id);
        final long executing = id << 2 | EXECUTING;
        if (segment == null || segment.states.get(slot) != executing)
        {
            return false;
        }
        final long size = response == null ? -1 : response.headerLength() + response.dataLength();
        final int trailers = response == null || response.metadata() == null ? 0 : response.metadata().encodedLength();
        Kept slotKept = segment.kept[slot];
        if (size >= 0 && size + trailers <= maxKept)
        {
            if (slotKept == null)
            {
                slotKept = new Kept();
                segment.kept[slot] = slotKept;
            }
            slotKept.keep(status, response, (int)size);
        }
        else if (slotKept != null)
        {
            slotKept.present = false;
        }
        final AtomicReferenceArray<HeldResponse> heldSlots = held != null ? heldSlots(segment) : segment.held;
        final HeldResponse older = heldSlots == null ? null : heldSlots.getAndSet(slot, held);
        segment.calls.set(slot, null);
        segment.states.compareAndSet(slot, executing, id << 2 | DONE); // publishes the kept response
        if (older != null)
        {
            older.close(); // the slot's reuse: a retransmit of that id is outside the sender's window by now
        }
        if (held != null && ended && heldSlots.compareAndSet(slot, held, null))
        {
            held.close(); // the session ended meanwhile: its sweep may have missed this one
        }
        return held != null;
    }

    @SuppressWarnings("unchecked")
    private AtomicReferenceArray<HeldResponse> heldSlots(final Segment segment)
    {
        final AtomicReferenceArray<HeldResponse> existing = segment.held;
        if (existing != null)
        {
            return existing;
        }
        HELD.compareAndSet(segment, null, new AtomicReferenceArray<HeldResponse>(segmentMask + 1));
        return segment.held;
    }

    /** The response held by reference for {@code id}, or null; {@link HeldResponse#share} to send it. */
    public HeldResponse held(final long id)
    {
        final Segment segment = segment(id);
        final AtomicReferenceArray<HeldResponse> heldSlots = segment == null ? null : segment.held;
        final HeldResponse held = heldSlots == null ? null : heldSlots.get(slot(id));
        return held != null && held.id == id ? held : null;
    }

    /** The requester has the response to {@code id}: a copy held by reference for it goes. Ids not held: nothing. */
    public void acknowledge(final long id)
    {
        final Segment segment = segment(id);
        final AtomicReferenceArray<HeldResponse> heldSlots = segment == null ? null : segment.held;
        if (heldSlots == null)
        {
            return;
        }
        final int slot = slot(id);
        final HeldResponse held = heldSlots.get(slot);
        if (held != null && held.id == id && heldSlots.compareAndSet(slot, held, null))
        {
            held.close();
        }
    }

    /** The session ended: every response held by reference is let go, and none is held any more. Any thread. */
    public void releaseHeld()
    {
        ended = true;
        for (int i = 0; i < segments.length(); i++)
        {
            final Segment segment = segments.get(i);
            final AtomicReferenceArray<HeldResponse> heldSlots = segment == null ? null : segment.held;
            if (heldSlots == null)
            {
                continue;
            }
            for (int slot = 0; slot < heldSlots.length(); slot++)
            {
                final HeldResponse held = heldSlots.getAndSet(slot, null);
                if (held != null)
                {
                    held.close();
                }
            }
        }
    }

    /** The kept-response array of {@code id}'s slot, for tests: how much the slot holds on to. */
    int keptCapacity(final long id)
    {
        final Segment segment = segment(id);
        final Kept k = segment == null ? null : segment.kept[slot(id)];
        return k == null ? 0 : k.bytes.length;
    }

    /** Forgets {@code id}, claimed but refused before it ran, so a retransmit of it may run. */
    public void abandon(final long id)
    {
        final Segment segment = segment(id);
        if (segment != null)
        {
            final int slot = slot(id);
            final long executing = id << 2 | EXECUTING;
            if (segment.states.get(slot) == executing)
            {
                segment.calls.set(slot, null); // only while the slot is still this id's: not a newer call's entry
                segment.states.compareAndSet(slot, executing, FREE);
            }
        }
    }

    /**
     * A copy of the response kept for {@code id}, or null when none was kept or the slot moved on meanwhile (a
     * newer id may overwrite the slot's arrays while we copy: the state word is checked again afterwards).
     */
    public Retained retained(final long id)
    {
        final Segment segment = segment(id);
        final int slot = slot(id);
        final long done = id << 2 | DONE;
        if (segment == null || segment.states.get(slot) != done)
        {
            return null;
        }
        final Kept k = segment.kept[slot];
        if (k == null || !k.present)
        {
            return null;
        }
        final byte[] from = k.bytes;
        final int length = k.length;
        final int[] lengthsFrom = k.segmentLengths;
        final int count = k.segmentCount;
        final int status = k.status;
        final int headerLength = k.headerLength;
        final Metadata trailers = k.trailers;
        if (length > from.length || count > lengthsFrom.length || headerLength > length)
        {
            return null; // torn: a newer id is being kept here
        }
        final byte[] bytes = Arrays.copyOf(from, length);
        final int[] lengths = Arrays.copyOf(lengthsFrom, count);
        VarHandle.acquireFence(); // the copies above must not move past the re-check
        if (segment.states.get(slot) != done)
        {
            return null;
        }
        return new Retained(status, bytes, headerLength, lengths, trailers);
    }
}
