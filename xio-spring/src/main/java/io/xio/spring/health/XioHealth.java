package io.xio.spring.health;

import org.jspecify.annotations.Nullable;

/**
 * The health service every server exports as {@value #RESOURCE} (unless {@code xio.server.health.enabled=false}),
 * modelled on gRPC's {@code grpc.health.v1}: whether the server, or one service of it, takes calls now. A generic
 * client calls it with the {@code xio-codec: json} metadata entry and reads JSON such as
 * {@code {"status":"SERVING","detail":null}}; an {@code @XioClient} of this interface with the configured codec.
 * It answers while the server drains (its set-ups are still taken, its sessions not sent GOAWAY), saying
 * {@link ServingStatus#NOT_SERVING}, until the server stops: its portals close, then its health sessions.
 */
public interface XioHealth
{
    /** The resource the health service is exported as. */
    String RESOURCE = "xio.health";

    /** The name that asks for the whole server rather than one service. */
    String SERVER = "";

    /**
     * The health of the service exported as {@code service}, or of the whole server for {@value #SERVER}.
     *
     * @param service an exported service's resource, or the empty name (a null one asks about the server too)
     * @return its status now; {@link ServingStatus#SERVICE_UNKNOWN} when the server exports no service so named
     */
    HealthCheck check(String service);

    /** Whether what was asked about takes calls. */
    enum ServingStatus
    {
        /** It takes calls. */
        SERVING,
        /** It does not: the server drains or stops, is not ready, or its health is not up. */
        NOT_SERVING,
        /** The server exports no service so named. */
        SERVICE_UNKNOWN
    }

    /**
     * One answer.
     *
     * @param status whether it takes calls
     * @param detail why not, in a few words (such as {@code "the server is draining"}); null when serving
     */
    record HealthCheck(ServingStatus status, @Nullable String detail)
    {
        /** Serving, with nothing to add. */
        public static final HealthCheck SERVING = new HealthCheck(ServingStatus.SERVING, null);

        /** Not serving, for {@code reason}. */
        public static HealthCheck notServing(final String reason)
        {
            return new HealthCheck(ServingStatus.NOT_SERVING, reason);
        }
    }
}
