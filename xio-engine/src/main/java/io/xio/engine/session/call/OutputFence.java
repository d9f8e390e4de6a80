package io.xio.engine.session.call;

import io.xio.engine.ProtocolViolationException;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameEncoder;
import io.xio.engine.protocol.Status;
import io.xio.engine.session.admission.DedupWindow;
import io.xio.engine.session.connection.Connection;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.List;

/**
 * The fence of one-sided writes into output buffers ({@code Outbound.responseInto}) on one lane's connection,
 * both ways. As requester: the outputs this side offered, each held until a fence says the peer can no longer
 * write there (the response for it, the answer to a CANCEL sent after the offer, or the connection's end).
 * As responder: the region the peer offered with its latest DATA_DESCRIPTOR, valid for the REQUEST that follows,
 * and how many CANCELs arrived since, which revokes every region offered before them. Owned by the lane's
 * context thread.
 */
final class OutputFence
{
    /** Requests whose output buffer the peer may still write into, by id (see {@link PendingRequest#exposedLength}). */
    private final Long2ObjectHashMap<PendingRequest> offered = new Long2ObjectHashMap<>();
    // CANCELs sent on the current connection and their answers, which come back one each, in order: the k-th
    // answer says the peer revoked every output offered before the k-th CANCEL.
    private long cancelsSent;
    private long cancelsAnswered;
    // The peer's latest DATA_DESCRIPTOR, for the REQUEST that follows it; and how many CANCELs it sent.
    private long descriptorId;
    private long descriptorAddress;
    private int descriptorKey;
    private int descriptorLength;
    private long cancelsSeen;

    /** A new connection: counts start again (offers of the old one were fenced by its end). */
    void reset()
    {
        descriptorId = 0;
        cancelsSeen = 0;
        cancelsSent = 0;
        cancelsAnswered = 0;
    }

    // ---- requester side ----

    boolean hasOffers()
    {
        return !offered.isEmpty();
    }

    /** The output of {@code request} was offered ({@code length} bytes from {@code at}): held until fenced. */
    void offer(final PendingRequest request, final int length, final int at)
    {
        request.outputExposed(length, at, cancelsSent);
        offered.put(request.id, request);
    }

    /** A CANCEL left on the connection: its answer, one day, fences the outputs offered before it. */
    void cancelSent()
    {
        cancelsSent++;
    }

    /** The lowest id with an output offered; {@link #hasOffers()} first. */
    long firstOffered()
    {
        long first = Long.MAX_VALUE;
        for (final PendingRequest request : offered.values())
        {
            first = Math.min(first, request.id);
        }
        return first;
    }

    /** The highest id with an output offered; {@link #hasOffers()} first. */
    long lastOffered()
    {
        long last = Long.MIN_VALUE;
        for (final PendingRequest request : offered.values())
        {
            last = Math.max(last, request.id);
        }
        return last;
    }

    /**
     * A RESPONSE arrived: the peer writes no more into the output offered for its id (its data, if written, is
     * in place). Checks a written response against the offer; returns where its data starts in the output.
     */
    int onResponse(final Frame frame, final boolean written)
    {
        final PendingRequest request = offered.isEmpty() ? null : offered.remove(frame.requestId());
        if (request == null && !written)
        {
            return 0;
        }
        if (written)
        {
            long total = 0;
            for (int i = 0; i < frame.segmentCount(); i++)
            {
                total += frame.segmentLength(i);
            }
            if (request == null || frame.status() != Status.OK || total > request.exposedLength)
            {
                throw new ProtocolViolationException("RESPONSE " + frame.requestId() + " wrote " + total +
                    " bytes into an output region " + (request == null ? "never offered" : "of " +
                    request.exposedLength + " bytes"));
            }
        }
        final int at = request.exposedAt;
        request.outputFenced();
        return at;
    }

    /** A RESPONSE reached a closed lane: only its fence matters. */
    void onLateResponse(final long id)
    {
        final PendingRequest request = offered.remove(id);
        if (request != null)
        {
            request.outputFenced();
        }
    }

    /** The peer answered one more of our CANCELs: it writes into no output offered before that CANCEL. */
    void onCancelAnswered()
    {
        final long answered = ++cancelsAnswered;
        if (offered.isEmpty())
        {
            return;
        }
        final List<PendingRequest> done = new ArrayList<>();
        for (final PendingRequest request : offered.values())
        {
            if (request.exposedEpoch < answered)
            {
                done.add(request);
            }
        }
        for (final PendingRequest request : done)
        {
            offered.remove(request.id);
            request.outputFenced();
        }
    }

    /** The connection ended: the peer can no longer write into any output. */
    void fenceAll()
    {
        if (offered.isEmpty())
        {
            return;
        }
        final List<PendingRequest> all = new ArrayList<>(offered.values());
        offered.clear();
        all.forEach(PendingRequest::outputFenced);
    }

    // ---- responder side ----

    /** Keeps the region a DATA_DESCRIPTOR offers, for the REQUEST that follows it. */
    void onDataDescriptor(final Frame frame)
    {
        final long id = DedupWindow.checkedId(frame.requestId());
        if (frame.headerLength() != FrameEncoder.DESCRIPTOR_BODY || frame.segmentCount() != 0)
        {
            throw new ProtocolViolationException("DATA_DESCRIPTOR with a " + frame.headerLength() + "-byte body and " +
                frame.segmentCount() + " segments (expected " + FrameEncoder.DESCRIPTOR_BODY + " bytes, none)");
        }
        final int at = frame.headerOffset();
        final int length = frame.buffer().getInt(at + 12, Frame.ORDER);
        if (length < 0)
        {
            throw new ProtocolViolationException("DATA_DESCRIPTOR offers a region of " + length + " bytes");
        }
        descriptorId = id;
        descriptorAddress = frame.buffer().getLong(at, Frame.ORDER);
        descriptorKey = frame.buffer().getInt(at + 8, Frame.ORDER);
        descriptorLength = length;
    }

    /** A REQUEST arrived: it gets the region offered just before it, if that was for its id; the offer is used up. */
    void takeDescriptor(final ServerCall call, final long id, final boolean oneWay, final Connection connection)
    {
        if (descriptorId == id && !oneWay)
        {
            call.outputOn = connection;
            call.outputAddress = descriptorAddress;
            call.outputKey = descriptorKey;
            call.outputLength = descriptorLength;
            call.outputEpoch = cancelsSeen;
        }
        descriptorId = 0;
    }

    /** A CANCEL arrived: no answer sent from now on may write into a region offered before it. */
    void cancelSeen()
    {
        cancelsSeen++;
    }

    /** Whether {@code call}'s answer may still go straight into the requester's region over {@code connection}. */
    boolean mayWriteInto(final ServerCall call, final Connection connection)
    {
        return call.outputOn == connection && call.outputEpoch == cancelsSeen;
    }
}
