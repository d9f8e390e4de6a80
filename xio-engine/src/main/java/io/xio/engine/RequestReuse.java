package io.xio.engine;

/**
 * How long the {@link InboundRequest} a service's handler is given, and its {@link Message}, stay the handler's:
 * chosen per service at {@link XioEngine#register(String, RequestHandler, RequestReuse)}.
 */
public enum RequestReuse
{
    /**
     * The handler may keep the request and its message as long as it likes, and call the request's methods at
     * any time (a second answer throws). Costs two small objects per request (the request and its message, about
     * 190 bytes). The default.
     */
    NEVER,

    /**
     * Allocation-free: xio reuses the request object and its message for a later request of the same session
     * once the request was answered ({@link InboundRequest#respond}/{@link InboundRequest#fail}, or for a
     * one-way message once the handler returned), the handler returned and the message was closed. So the
     * handler must not touch the request after answering it, nor the message after closing it, nor close it
     * twice: on a reused object such a call would act on another request. Answering later, from any thread,
     * stays allowed. A cancelled request is reused only after its handler answers it anyway (which sends
     * nothing).
     */
    AFTER_ANSWER
}
