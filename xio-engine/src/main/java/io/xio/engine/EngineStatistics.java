package io.xio.engine;

/**
 * Totals of one context, or summed over an engine's contexts, since it started. Frames per write above one
 * shows small messages coalescing. A snapshot; each field is read on its own, so the set is not atomic.
 *
 * @param framesSent frames committed to transports
 * @param writes transport writes (gathering writes, pipe hand-overs) that carried them
 * @param bytesSent bytes those writes carried
 * @param framesReceived whole frames received
 * @param bytesReceived bytes of those frames
 * @param retransmits requests sent again on another or a re-established connection after a failure
 * @param backPressureRejections requests refused for lack of room, here or by the peer; counted by the engine
 *     only (a refusal happens on the caller's thread), so a context's figure is 0
 * @param busyNanos time the context thread(s) spent working
 * @param idleNanos time the context thread(s) found no work, spinning or parked
 */
public record EngineStatistics(long framesSent, long writes, long bytesSent, long framesReceived,
    long bytesReceived, long retransmits, long backPressureRejections, long busyNanos, long idleNanos)
{
    /** Frames per write: above one when small messages coalesce; 0 before the first write. */
    public double framesPerWrite()
    {
        return writes == 0 ? 0 : (double)framesSent / writes;
    }
}
