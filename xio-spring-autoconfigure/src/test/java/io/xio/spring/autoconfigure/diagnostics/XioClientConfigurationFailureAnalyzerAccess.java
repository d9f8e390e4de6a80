package io.xio.spring.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.FailureAnalysis;

/** Lets tests run the package-private analyzer the way Spring Boot does. */
public final class XioClientConfigurationFailureAnalyzerAccess
{
    public FailureAnalysis analyze(final Throwable failure)
    {
        return new XioClientConfigurationFailureAnalyzer().analyze(failure);
    }
}
