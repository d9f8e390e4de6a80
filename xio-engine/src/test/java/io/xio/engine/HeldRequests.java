package io.xio.engine;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Requests a test service holds unanswered ({@code engine.register("hold", held::add)}), so that calls stay in flight
 * while the test drains, kills or cuts something; {@link #releaseAll()} echoes them. Thread-safe.
 */
public final class HeldRequests extends ConcurrentLinkedQueue<InboundRequest>
{
    private static final long serialVersionUID = 1L;

    /** Answers every request held now with its own header and segments. */
    public void releaseAll()
    {
        InboundRequest request;
        while ((request = poll()) != null)
        {
            try
            {
                TestEngines.ECHO.onRequest(request);
            }
            catch (final Exception ex)
            {
                throw new AssertionError(ex);
            }
        }
    }
}
