package io.xio.spring.observation;

/**
 * One kind of call: a method of a service, seen from one side, over one transport. Made once per kind and
 * handed to {@link XioInstrumentation#recorder}, never per call.
 *
 * @param side client (a proxy call) or server (an exported bean's method)
 * @param service the resource the service is exported as
 * @param method the Java method's name (overloads share it)
 * @param wireName the name the call travels under ({@code @XioMethod(name)}, else the method's name and
 *     parameter types), which keeps overloads apart
 * @param transport the URI scheme: tcp, shm, rdma, local
 */
public record XioCall(Side side, String service, String method, String wireName, String transport)
{
    /** A call whose wire name is its method's name. */
    public XioCall(final Side side, final String service, final String method, final String transport)
    {
        this(side, service, method, method, transport);
    }

    /** Which end of the call is recorded. */
    public enum Side
    {
        CLIENT, SERVER
    }
}
