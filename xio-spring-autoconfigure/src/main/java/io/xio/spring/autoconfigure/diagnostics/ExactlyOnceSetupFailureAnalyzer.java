package io.xio.spring.autoconfigure.diagnostics;

import io.xio.spring.service.ExactlyOnceSetupException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an exactly-once method that cannot run exactly once (no transaction manager, no data source, no ledger,
 * a propagation that would not join the ledger's transaction): which method of which service, what is wrong, and
 * what to do about it.
 */
class ExactlyOnceSetupFailureAnalyzer extends AbstractFailureAnalyzer<ExactlyOnceSetupException>
{
    @Override
    protected FailureAnalysis analyze(final Throwable rootFailure, final ExactlyOnceSetupException cause)
    {
        return new FailureAnalysis("The exactly-once method " + ExactlyOnceSetupException.describe(cause.method()) +
            " (@XioMethod(exactlyOnce = true)) of the xio service '" + cause.service() + "' cannot run exactly " +
            "once: " + cause.problem() + ".", cause.action(), cause);
    }
}
