package io.xio.spring.autoconfigure.client;

/**
 * What one client proxy's session is doing, for health and monitoring.
 *
 * @param name the client's name ({@code xio.clients.<name>}), or empty for a client given only a URI
 * @param api the interface the proxy implements
 * @param uri the address it calls
 * @param state where its session stands
 * @param detail why it is not established (the last failure), or null
 */
public record XioClientStatus(String name, Class<?> api, String uri, State state, String detail)
{
    /** Where a client's session stands. */
    public enum State
    {
        /** Not used yet: the session opens on the first call (or the first probe). */
        NOT_OPENED,
        /** Opening now. */
        CONNECTING,
        /** Open, with at least one connection up. */
        ESTABLISHED,
        /** Open, but every connection is down: the engine is re-attaching. */
        RECONNECTING,
        /** The last attempt to open it failed; the next call tries again. */
        UNREACHABLE
    }

    public boolean isEstablished()
    {
        return state == State.ESTABLISHED;
    }
}
