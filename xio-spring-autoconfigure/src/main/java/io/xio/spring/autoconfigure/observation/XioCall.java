package io.xio.spring.autoconfigure.observation;

/**
 * One kind of call: a method of a service, seen from one side, over one transport. Made once per kind and
 * handed to {@link XioInstrumentation#recorder}, never per call.
 *
 * @param side client (a proxy call) or server (an exported bean's method)
 * @param service the resource the service is exported as
 * @param method the method's wire name
 * @param transport the URI scheme: tcp, shm, rdma, local
 */
public record XioCall(Side side, String service, String method, String transport)
{
    /** Which end of the call is recorded. */
    public enum Side
    {
        CLIENT, SERVER
    }
}
