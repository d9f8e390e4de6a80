package io.xio.engine;

/** Receives {@link SessionEvent}s, on a context thread: do not block. */
@FunctionalInterface
public interface SessionListener
{
    void onEvent(SessionEvent event);

    SessionListener NONE = event -> { };
}
