package io.xio.spring.autoconfigure.diagnostics;

import io.xio.spring.autoconfigure.client.XioClientConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@code @XioClient} without an address (or with two) the way Spring Boot explains its own start-up
 * failures, naming the properties in their canonical form.
 */
class XioClientConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<XioClientConfigurationException>
{
    @Override
    protected FailureAnalysis analyze(final Throwable rootFailure, final XioClientConfigurationException cause)
    {
        final String prefix = cause.propertyPrefix();
        if (prefix == null)
        {
            return new FailureAnalysis("The xio client interface " + cause.interfaceName() + " is annotated " +
                "@XioClient without a client name or a uri, so it has no address.",
                "Give the annotation a client name and set its address under xio.clients.<name> " +
                    "(@XioClient(\"orders\") with xio.clients.orders.uri=tcp://localhost:7000/orders), or give the " +
                    "address on the annotation: @XioClient(uri = \"tcp://localhost:7000/orders\").", cause);
        }
        if (cause.problem() != null)
        {
            return new FailureAnalysis("The xio client " + cause.clientName() + " (" + cause.interfaceName() + ") " +
                cause.problem() + ".", "Keep either " + prefix + ".uri or " + prefix + ".service-id.", cause);
        }
        return new FailureAnalysis(
            "The xio client interface " + cause.interfaceName() + " is annotated @XioClient(\"" + cause.clientName() +
                "\"), but no property " + prefix + ".uri (nor " + prefix + ".service-id) is set and no " +
                "XioClientConnectionDetails bean knows the client.",
            "Set " + prefix + ".uri (e.g. tcp://localhost:7000/" + cause.clientName() + "), or " + prefix +
                ".service-id for a service in Spring Cloud discovery, or give the address on the annotation: " +
                "@XioClient(uri = \"...\").",
            cause);
    }
}
