package io.xio.engine;

/**
 * Totals over an engine's contexts since it started. Frames per write above one shows small messages
 * coalescing (S1.9). A snapshot; each field is read on its own, so the set is not atomic.
 *
 * @param framesSent frames committed to transports
 * @param writes transport writes (gathering writes, pipe hand-overs) that carried them
 * @param bytesSent bytes those writes carried
 * @param framesReceived whole frames received
 * @param bytesReceived bytes of those frames
 */
public record EngineStatistics(long framesSent, long writes, long bytesSent, long framesReceived,
    long bytesReceived)
{
}
