package io.xio.actuate.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;
import io.xio.spring.observation.XioCall;
import io.xio.spring.observation.XioCallOutcome;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * The observations xio makes of calls, and their key names: OpenTelemetry's RPC semantic conventions where they
 * fit ({@code rpc.system}, {@code rpc.service}, {@code rpc.method}), xio's own for the rest, and the tags the
 * timers had before those ({@code service}, {@code method}, {@code outcome}, {@code transport}), kept so that
 * dashboards built on them go on working.
 */
public enum XioObservationDocumentation implements ObservationDocumentation
{
    /** A call made through a client proxy: span kind CLIENT, timer {@code xio.client.requests}. */
    CLIENT
    {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention()
        {
            return DefaultXioClientObservationConvention.class;
        }
    },
    /** A call served by an exported bean: span kind SERVER, timer {@code xio.server.requests}. */
    SERVER
    {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention()
        {
            return DefaultXioServerObservationConvention.class;
        }
    };

    /** {@code rpc.system}'s value. */
    public static final String SYSTEM = "xio";

    @Override
    public KeyName[] getLowCardinalityKeyNames()
    {
        return LowCardinalityKeyNames.values();
    }

    /**
     * The low-cardinality key values of a call, the same for its span and its timer (so a timer looks the same
     * with a tracer as without): the call's, and once it has ended, its outcome's.
     *
     * @param call the kind of call
     * @param outcome how it ended, or null while it runs
     */
    public static KeyValues lowCardinalityKeyValues(final XioCall call, final @Nullable XioCallOutcome outcome)
    {
        final List<KeyValue> values = new ArrayList<>(10);
        values.add(LowCardinalityKeyNames.RPC_SYSTEM.withValue(SYSTEM));
        values.add(LowCardinalityKeyNames.RPC_SERVICE.withValue(call.service()));
        values.add(LowCardinalityKeyNames.RPC_METHOD.withValue(call.wireName()));
        values.add(LowCardinalityKeyNames.TRANSPORT.withValue(call.transport()));
        values.add(LowCardinalityKeyNames.SERVICE.withValue(call.service()));
        values.add(LowCardinalityKeyNames.METHOD.withValue(call.method()));
        values.add(LowCardinalityKeyNames.LEGACY_TRANSPORT.withValue(call.transport()));
        if (outcome != null)
        {
            values.add(LowCardinalityKeyNames.STATUS.withValue(outcome.tag()));
            values.add(LowCardinalityKeyNames.OUTCOME.withValue(outcome.tag()));
        }
        return KeyValues.of(values);
    }

    /** The span name of a call: {@code service/method}, as OpenTelemetry names RPC spans. */
    public static String contextualName(final XioCall call)
    {
        return call.service() + "/" + call.wireName();
    }

    /** Low-cardinality keys of xio's observations (and tags of its timers). */
    public enum LowCardinalityKeyNames implements KeyName
    {
        /** Always {@value #SYSTEM}. */
        RPC_SYSTEM("rpc.system"),
        /** The resource the service is exported as. */
        RPC_SERVICE("rpc.service"),
        /** The method's wire name ({@code @XioMethod(name)}, else its name and parameter types): overloads differ. */
        RPC_METHOD("rpc.method"),
        /** How the call ended: an {@link XioCallOutcome}. */
        STATUS("rpc.xio.status"),
        /**
         * The transport: tcp, shm, rdma or local (OpenTelemetry's {@code network.transport} has no values for the
         * last three).
         */
        TRANSPORT("xio.transport"),
        /** Kept from before the RPC names: the service, as {@code rpc.service}. */
        SERVICE("service"),
        /** Kept from before the RPC names: the Java method's name, which overloads share. */
        METHOD("method"),
        /** Kept from before the RPC names: how the call ended, as {@code rpc.xio.status}. */
        OUTCOME("outcome"),
        /** Kept from before the RPC names: the transport, as {@code xio.transport}. */
        LEGACY_TRANSPORT("transport");

        private final String key;

        LowCardinalityKeyNames(final String key)
        {
            this.key = key;
        }

        @Override
        public String asString()
        {
            return key;
        }
    }
}
