package io.xio.engine.session.call;

import io.xio.engine.Limits;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.XioUri;
import io.xio.engine.session.LeakTracker;
import io.xio.engine.session.admission.StreamAdmission;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What every lane of one session is made with: the session as a lane sees it, the ring of its lanes, and what the
 * parts a lane owns need (its peer's calls, the answers to its own, the handler). Made once per session. Immutable.
 *
 * @param session the session as its lanes see it
 * @param client makes a client lane's handshake (the client session's side of the set-up); null on the server side
 * @param calls what the peer's calls need of their session ({@link ServerCall})
 * @param api the session as the application sees it
 * @param leaks tracks received messages; null without leak detection
 * @param target the session's URI with its resource, for the answers' messages
 * @param requestsReceived counts the peer's requests, for the session's statistics
 * @param reuseCalls whether the lanes pool their calls ({@link io.xio.engine.RequestReuse#AFTER_ANSWER})
 * @param streams the session's open streams and what they may cost
 * @param sendLimits the limits on what this side sends, the peer's where they are smaller (known after the set-up)
 * @param sessionStreams every stream of the session, whichever lane holds it
 */
public record LaneContext(LaneHost session, Function<Lane, Lane.Handshake> client, LaneRing ring,
    ServerCallContext calls, Session api, LeakTracker leaks, XioUri target, RequestHandler handler, Limits limits,
    AtomicLong requestsReceived, boolean reuseCalls, StreamAdmission streams, Supplier<Limits> sendLimits,
    SessionStreams sessionStreams)
{
}
