package io.xio.cli;

import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioEngine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code xio health}: asks a server's {@code xio.health} resource whether it, or one of its services, takes calls,
 * as Kubernetes' exec probes and scripts ask, and turns the answer into an exit status: {@link Main#OK} when
 * {@code SERVING}, {@link #NOT_SERVING} when {@code NOT_SERVING} or {@code SERVICE_UNKNOWN}. A server that refuses the
 * session because it drains is not serving either (one whose health resource is off answers so). Runs on the
 * command's thread.
 */
final class HealthProbe
{
    /** The exit status of a server, or service, that does not take calls (or a service the server does not know). */
    static final int NOT_SERVING = 4;

    static final String RESOURCE = "xio.health";

    private static final String SERVING = "SERVING";

    private HealthProbe()
    {
    }

    /**
     * The server's answer for {@code options.service} (the whole server when none was given), as JSON:
     * {@code {"status": ..., "detail": ...}}.
     *
     * @throws Main.NotConnected when no session could be opened, other than because the server drains
     * @throws Main.CallFailed when the server answered with an error, or with no status
     */
    static JsonNode check(final XioEngine engine, final Options options)
    {
        final String service = options.service == null ? "" : options.service;
        final JsonNode answer;
        try
        {
            answer = Main.call(engine, options, RESOURCE, "check(String)",
                JsonNodeFactory.instance.arrayNode().add(service).toString(), false);
        }
        catch (final Main.NotConnected ex)
        {
            if (ex.getCause() instanceof SessionRejectedException rejected && rejected.isDraining())
            {
                final ObjectNode draining = JsonNodeFactory.instance.objectNode();
                draining.put("status", "NOT_SERVING");
                draining.put("detail", rejected.reason());
                return draining;
            }
            throw ex;
        }
        if (answer == null || !answer.path("status").isString())
        {
            throw new Main.CallFailed(options.server + " answered a health check without a status: " + answer);
        }
        return answer;
    }

    /** The exit status of an answer {@link #check} gave. */
    static int exitStatus(final JsonNode answer)
    {
        return SERVING.equals(answer.path("status").asString()) ? Main.OK : NOT_SERVING;
    }
}
