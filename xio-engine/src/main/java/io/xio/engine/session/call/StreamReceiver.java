package io.xio.engine.session.call;

import io.xio.engine.Message;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameFlags;
import io.xio.engine.protocol.StreamFrames;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.Messages;
import org.agrona.collections.LongArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One stream's receiving direction: checks each message against the sequence and the credit granted (a sender
 * beyond either breaks the protocol), holds what the application has not asked for yet (at most the window), hands
 * the rest to the listener in order, and grants credit again as the application takes messages: absolute limits,
 * half a window at a time. A message that asks for it ({@code ACK_REQUESTED}: its sender's own window is full) is
 * acknowledged as it arrives. The end of the direction reaches the listener after the last message. The context
 * thread's; {@link #request} any thread's.
 */
final class StreamReceiver
{
    private final LaneStream stream;
    private final int windowMessages;
    private final long windowBytes;
    private final LeakTracker leaks;
    private final ArrayDeque<Message> held = new ArrayDeque<>();
    /** Messages the application closed, to wrap the next ones in (closed on any thread). */
    private final ManyToOneConcurrentArrayQueue<Recycled> idle = new ManyToOneConcurrentArrayQueue<>(64);
    private final LongArrayQueue heldBytes = new LongArrayQueue();
    /**
     * Sequence numbers of the held messages that came by reference (a view into the sender's shared memory, shm): not
     * acknowledged while held, since a sender whose link went with them unreleased takes an acknowledged one as free
     * to write into again, and the listener would then read other bytes than were sent. Until they are copied into
     * our own memory, which is done when the end arrives or the connection goes ({@link #copyHeldShared}). Made for
     * the first such message: only shm carries them, and only from shared buffers.
     */
    private LongArrayQueue heldShared;
    private final AtomicLong demand = new AtomicLong();
    private final AtomicBoolean deliveryScheduled = new AtomicBoolean();
    private final Runnable deliveryTask = this::deliveryDue;

    private long received;
    private long receivedBytes;
    /** Set when this side asked to cancel: no more credit from then on. */
    private volatile boolean cancelling;
    private long grantedSequence;
    private long grantedBytes;
    private long delivered;
    private long deliveredBytes;
    /** A credit that found no room on the connection: sent when there is. */
    private boolean creditOwed;
    /** The last credit acknowledged less than was received, for messages held by reference: due once they are out. */
    private boolean acknowledgementWithheld;
    /** What the last credit written said was received here. */
    private long acknowledgedSent;
    /** The end arrived (its sequence number is {@link #received}); it goes to the listener after what is held. */
    private boolean endArrived;
    private boolean endDelivered;
    /** Inside {@link #deliver}: a request from the listener adds demand, the loop takes it. */
    private boolean delivering;

    StreamReceiver(final LaneStream stream, final int windowMessages, final long windowBytes, final LeakTracker leaks)
    {
        this.stream = stream;
        this.windowMessages = windowMessages;
        this.windowBytes = windowBytes;
        this.leaks = leaks;
    }

    /** The window the sender may fill before the application takes anything: granted when the stream opens. */
    void grantWindow()
    {
        grantedSequence = windowMessages;
        grantedBytes = windowBytes;
        sendCredit();
    }

    /** Messages held for the application now; the context thread. */
    int held()
    {
        return held.size();
    }

    /** One STREAM_DATA of this direction, read now; the context thread. */
    void onData(final Frame frame, final Slab slab)
    {
        final long sequence = StreamFrames.sequence(frame);
        if (sequence <= received)
        {
            return; // had already, as after a resend on another connection: the first counted
        }
        if ((frame.flags() & FrameFlags.END) != 0)
        {
            arrive(StreamArrival.of(frame, slab, leaks, stream.streams().target()));
            return;
        }
        check(sequence, false);
        take(sequence, StreamArrival.bytes(frame), message(slab, frame));
        if ((frame.flags() & FrameFlags.ACK_REQUESTED) != 0)
        {
            acknowledge();
        }
    }

    /**
     * The message in {@code frame}: one the application closed before, wrapped again, so that a stream whose messages
     * are closed as they come allocates none.
     */
    private Message message(final Slab slab, final Frame frame)
    {
        Recycled recycled = idle.poll();
        if (recycled == null)
        {
            recycled = new Recycled(idle);
        }
        return Messages.rewrap(recycled.message, slab, frame, leaks, recycled);
    }

    /** A message of this stream's, and what puts it back for the next once the application closed it. */
    private static final class Recycled implements Runnable
    {
        final Message message = Messages.released();
        private final ManyToOneConcurrentArrayQueue<Recycled> idle;

        Recycled(final ManyToOneConcurrentArrayQueue<Recycled> idle)
        {
            this.idle = idle;
        }

        @Override
        public void run()
        {
            idle.offer(this); // when full, left to the garbage collector
        }
    }

    /** One STREAM_DATA read out before the stream was here (it was moving to this lane); the context thread. */
    void arrive(final StreamArrival arrival)
    {
        if (arrival.sequence() <= received)
        {
            arrival.discard();
            return;
        }
        try
        {
            check(arrival.sequence(), arrival.end());
        }
        catch (final ProtocolViolationException ex)
        {
            arrival.discard();
            throw ex;
        }
        if (arrival.end())
        {
            received = arrival.sequence();
            endArrived = true;
            stream.endArrived(arrival);
            deliver();
            return;
        }
        take(arrival.sequence(), arrival.bytes(), arrival.message());
        if (arrival.ackRequested())
        {
            acknowledge();
        }
    }

    private void check(final long sequence, final boolean end)
    {
        if (endArrived)
        {
            throw violation("message " + sequence + " after the end of the direction at " + received);
        }
        if (sequence != received + 1)
        {
            throw violation("message " + sequence + " where " + (received + 1) + " was due");
        }
        if (end)
        {
            return;
        }
        if (sequence > grantedSequence)
        {
            throw violation("message " + sequence + " beyond the credit of " + grantedSequence + " messages");
        }
        if (receivedBytes >= grantedBytes)
        {
            throw violation("message " + sequence + " beyond the credit of " + grantedBytes + " bytes, " +
                receivedBytes + " received");
        }
    }

    private void take(final long sequence, final long bytes, final Message message)
    {
        received = sequence;
        receivedBytes += bytes;
        if (stream.isFinished())
        {
            message.close(); // nobody takes it any more (this side ended the stream)
            return;
        }
        if (held.isEmpty() && stream.listening() && !stream.isFinished() && take())
        {
            handOut(message, bytes);
            return;
        }
        held.add(message);
        heldBytes.addLong(bytes);
        if (message.inShared())
        {
            if (heldShared == null)
            {
                heldShared = new LongArrayQueue();
            }
            heldShared.addLong(sequence);
        }
    }

    private ProtocolViolationException violation(final String problem)
    {
        return new ProtocolViolationException("STREAM_DATA on stream " + stream.id + " of session " +
            stream.sessionId() + ": " + problem);
    }

    /** Lets {@code count} more messages go to the listener. Any thread. */
    void request(final long count)
    {
        if (count <= 0)
        {
            throw new IllegalArgumentException("a stream is asked for a positive number of messages, not " + count);
        }
        demand.accumulateAndGet(count, (now, more) -> now + more < 0 ? Long.MAX_VALUE : now + more);
        deliverSoon();
    }

    /** Delivery is due on the context thread (a request, a start). Any thread. */
    void deliverSoon()
    {
        if (stream.owns())
        {
            deliver();
        }
        else if (deliveryScheduled.compareAndSet(false, true))
        {
            stream.runOnOwner(deliveryTask);
        }
    }

    private void deliveryDue()
    {
        deliveryScheduled.set(false);
        if (!stream.owns())
        {
            deliverSoon(); // moved to another lane meanwhile
            return;
        }
        deliver();
    }

    /** Takes one of the application's demand, if it has any. */
    private boolean take()
    {
        while (true)
        {
            final long now = demand.get();
            if (now == 0)
            {
                return false;
            }
            if (now == Long.MAX_VALUE || demand.compareAndSet(now, now - 1))
            {
                return true;
            }
        }
    }

    /**
     * The context thread: held messages as far as asked for, then the end when nothing is held. A listener that asks
     * for more from inside {@code onMessage} only adds demand: this loop goes on (no recursion per message).
     */
    void deliver()
    {
        if (delivering)
        {
            return;
        }
        delivering = true;
        try
        {
            deliverHeld();
        }
        finally
        {
            delivering = false;
        }
    }

    private void deliverHeld()
    {
        while (!held.isEmpty() && stream.listening() && !stream.isFinished())
        {
            if (!take())
            {
                break;
            }
            final Message next = held.poll();
            if (next.inShared())
            {
                heldShared.pollLong();
            }
            handOut(next, heldBytes.pollLong());
        }
        acknowledgeWithheld();
        if (endArrived && !endDelivered && held.isEmpty() && stream.listening() && !stream.isFinished())
        {
            endDelivered = true;
            stream.deliverEnd();
        }
    }

    private void handOut(final Message message, final long bytes)
    {
        delivered++;
        deliveredBytes += bytes;
        stream.deliver(message);
        if (!endArrived && !cancelling &&
            (delivered + windowMessages - grantedSequence >= Math.max(1, windowMessages / 2) ||
            deliveredBytes + windowBytes - grantedBytes >= Math.max(1, windowBytes / 2)))
        {
            grantedSequence = delivered + windowMessages;
            grantedBytes = deliveredBytes + windowBytes;
            sendCredit();
        }
    }

    /**
     * This side asked to cancel the stream (the cancel may not have run yet): messages already due may still be handed
     * out, to be closed, and must not earn the sender more credit. Any thread.
     */
    void cancelling()
    {
        cancelling = true;
    }

    /**
     * Says what was received (short of the first message held by reference) and granted; owed till later when the
     * connection has no room.
     */
    void sendCredit()
    {
        final long acknowledged = acknowledgeable();
        acknowledgementWithheld = acknowledged < received;
        // An end needs no credit, so what was received may pass what was granted by one: never below it.
        creditOwed = !stream.sendCredit(acknowledged, Math.max(grantedSequence, received), grantedBytes);
        if (creditOwed)
        {
            stream.waitForRoom();
        }
        else
        {
            acknowledgedSent = acknowledged;
        }
    }

    /** What a credit may acknowledge: what was received, short of the first message held by reference. */
    private long acknowledgeable()
    {
        return holdsShared() ? heldShared.peekLong() - 1 : received;
    }

    /**
     * The sender's window is full (its message asked for an acknowledgement): what was received goes back at once,
     * with the limits as last granted, unless a credit said it already or one owed will.
     */
    private void acknowledge()
    {
        if (acknowledgedSent < acknowledgeable() && !creditOwed && !cancelling && !stream.isFinished())
        {
            sendCredit();
        }
    }

    /**
     * The end arrived: the sender learns it was had (a credit that acknowledges it, and every message before it: those
     * held by reference are copied first).
     */
    void acknowledgeEnd()
    {
        copyHeldShared();
        sendCredit();
    }

    /**
     * The stream's connection was lost: the messages held by reference are copied, so that the credit that resumes
     * the stream acknowledges them (the sender may then write into their buffers again).
     */
    void connectionLost()
    {
        copyHeldShared();
        acknowledgementWithheld = false; // said by the resume's credit
    }

    /**
     * Copies the messages held by reference into this process's memory, giving their sender its buffers back: at most
     * the window's bytes (and one message), for whatever time the listener takes to ask for them. Not done while the
     * stream runs on its connection: the sender lends its buffers that long, and each copy would cost what a
     * reference saves.
     */
    private void copyHeldShared()
    {
        if (!holdsShared())
        {
            return;
        }
        for (final Message message : held)
        {
            Messages.copyOutOfShared(message);
        }
        heldShared.clear();
    }

    /** After a resume: the sender learns what was had here and what it may send (a credit, the same as before). */
    void resume()
    {
        sendCredit();
    }

    /** The connection has room again: a credit owed goes now. */
    void creditIfOwed()
    {
        if (creditOwed)
        {
            sendCredit();
        }
    }

    /** The stream is over: what is held is released, unread. */
    void drop()
    {
        Message message;
        while ((message = held.poll()) != null)
        {
            message.close();
        }
        heldBytes.clear();
        if (heldShared != null)
        {
            heldShared.clear();
        }
        acknowledgeWithheld();
    }

    /**
     * What was held by reference is out (to the listener, or dropped): the acknowledgement withheld for it goes now,
     * and the sender may let go of those messages.
     */
    private void acknowledgeWithheld()
    {
        if (acknowledgementWithheld && !holdsShared())
        {
            sendCredit();
        }
    }

    private boolean holdsShared()
    {
        return heldShared != null && !heldShared.isEmpty();
    }
}
