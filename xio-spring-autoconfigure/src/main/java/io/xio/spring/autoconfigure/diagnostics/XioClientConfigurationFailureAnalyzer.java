package io.xio.spring.autoconfigure.diagnostics;

import io.xio.spring.autoconfigure.client.XioClientConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains an {@code @XioClient} without settings the way Spring Boot explains its own start-up failures. */
class XioClientConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<XioClientConfigurationException>
{
    @Override
    protected FailureAnalysis analyze(final Throwable rootFailure, final XioClientConfigurationException cause)
    {
        if (cause.problem() != null)
        {
            return new FailureAnalysis("The xio client " + cause.clientName() + " (" + cause.interfaceName() + ") " +
                cause.problem() + ".", "Keep either xio.clients." + cause.clientName() + ".uri or xio.clients." +
                cause.clientName() + ".service-id.", cause);
        }
        return new FailureAnalysis(
            "The xio client interface " + cause.interfaceName() + " is annotated @XioClient(\"" + cause.clientName() +
                "\"), but no property xio.clients." + cause.clientName() + ".uri is set.",
            "Set xio.clients." + cause.clientName() + ".uri (e.g. tcp://localhost:7000/" + cause.clientName() +
                "), or give the address on the annotation: @XioClient(uri = \"...\").",
            cause);
    }
}
