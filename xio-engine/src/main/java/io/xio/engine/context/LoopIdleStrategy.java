package io.xio.engine.context;

import org.agrona.concurrent.IdleStrategy;

/**
 * Spins for the loop's busy-poll time after the last work, then parks in the loop's selector (busy-wait
 * polling combined with sleeping). Used by the loop's own thread only.
 */
public final class LoopIdleStrategy implements IdleStrategy
{
    private final EventLoop loop;

    public LoopIdleStrategy(final EventLoop loop)
    {
        this.loop = loop;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            loop.resetIdle();
        }
        else
        {
            loop.idle();
        }
    }

    @Override
    public void idle()
    {
        loop.idle();
    }

    @Override
    public void reset()
    {
        loop.resetIdle();
    }
}
