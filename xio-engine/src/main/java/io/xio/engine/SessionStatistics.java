package io.xio.engine;

/**
 * Counters of one session since it opened, from this side's point of view. A snapshot read from any thread;
 * fields are read one by one.
 *
 * @param requestsSent requests and one-way messages this side sent (each counted once, however often retransmitted)
 * @param requestsReceived new requests and one-way messages from the peer (retransmits of known ones excluded)
 * @param inFlight requests sent and not yet finished
 * @param executing requests from the peer being handled here
 * @param retransmits requests sent again after a connection failure
 * @param backPressureRejections requests refused for lack of room, here or by the peer
 * @param openStreams streams open on the session now, those of both sides (what {@code maxStreamsPerSession} bounds),
 *     from their open until they are over on the wire (an acceptor's once the opener acknowledged its end): counted
 *     up on the thread that opens a stream (the caller's for this side's, the context's for the peer's), down on the
 *     thread of the context that holds it when it ends (the opening thread's, for an open that fails at once)
 */
public record SessionStatistics(long requestsSent, long requestsReceived, int inFlight, int executing,
    long retransmits, long backPressureRejections, int openStreams)
{
}
