package io.xio.engine.transport;

/**
 * Told once when a link is done with a frame's buffers: written, or discarded because the link closed
 * first. Called on the link's context thread.
 */
@FunctionalInterface
public interface SendCompletion
{
    void onSendComplete(boolean written);
}
