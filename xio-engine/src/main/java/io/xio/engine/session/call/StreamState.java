package io.xio.engine.session.call;

/**
 * Where a stream is in its life, as the side holding it sees it. The opener's starts {@link #OPENING} until the
 * acceptor's first credit says it took the stream; the acceptor's starts {@link #OPEN}. A stream whose acceptor ended
 * it is {@link #ENDED} on the acceptor's side until the opener acknowledged the end, or the wait for that ran out
 * (its late messages are dropped meanwhile); {@link #DONE} is the end on either side. The transitions are all here.
 */
enum StreamState
{
    OPENING, OPEN, ENDED, DONE;

    boolean canMoveTo(final StreamState next)
    {
        return switch (this)
        {
            case OPENING -> next == OPEN || next == DONE;
            case OPEN -> next == ENDED || next == DONE;
            case ENDED -> next == DONE;
            case DONE -> false;
        };
    }
}
