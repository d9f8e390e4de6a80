package io.xio.engine.session.call;

import io.xio.engine.Session;
import io.xio.engine.session.admission.DedupWindow;
import org.agrona.concurrent.NanoClock;

/**
 * What the calls on a session's lanes ({@link ServerCall}) need of their session: the session as the application
 * sees it, the part that answers, the deduplication window, the engine's clock, and the counter of calls refused for
 * lack of room. One per session, shared by its lanes. Immutable.
 */
public record ServerCallContext(Session session, ServerAnswers answers, DedupWindow window, NanoClock clock,
    Runnable rejected)
{
}
