package io.xio.spring.exactlyonce;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;

/**
 * The hints of xio's own reflection for exactly-once methods: {@link TransactionalExactlyOnceCalls} asks Spring's
 * {@code TransactionAspectSupport.determineTransactionManager} (protected) which transaction manager a method's
 * {@code @Transactional} uses, so a native image must keep that method invocable. Nothing when the application lacks
 * what exactly-once methods need ({@code spring-tx}, {@code xio-ledger}). Registered in
 * {@code META-INF/spring/aot.factories}; runs during AOT processing.
 */
class ExactlyOnceRuntimeHints implements RuntimeHintsRegistrar
{
    private static final String SPRING_TX = "org.springframework.transaction.interceptor.TransactionAspectSupport";
    private static final String XIO_LEDGER = "io.xio.ledger.ExactlyOnceExecution";

    @Override
    public void registerHints(final RuntimeHints hints, final @Nullable ClassLoader classLoader)
    {
        if (!ClassUtils.isPresent(SPRING_TX, classLoader) || !ClassUtils.isPresent(XIO_LEDGER, classLoader))
        {
            return;
        }
        final Method determineManager = TransactionalExactlyOnceCalls.determineTransactionManager();
        if (determineManager != null)
        {
            hints.reflection().registerMethod(determineManager, ExecutableMode.INVOKE);
        }
    }
}
