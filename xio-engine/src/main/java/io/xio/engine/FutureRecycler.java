package io.xio.engine;

import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;

/**
 * Makes a completed {@link CompletableFuture} incomplete again, for {@link CallOptions#withRecycledFuture()}: the
 * class offers no way to, and {@code java.util.concurrent} is not open to reflection, so its two fields are cleared
 * through {@code sun.misc.Unsafe} (which Agrona uses already). Where that is not possible the option's futures are
 * not reused ({@link #SUPPORTED} is false). Any thread; only for a future nobody else may touch any more.
 */
final class FutureRecycler
{
    static final boolean SUPPORTED;
    private static final sun.misc.Unsafe UNSAFE;
    private static final long RESULT;
    private static final long STACK;

    static
    {
        sun.misc.Unsafe unsafe = null;
        long result = -1;
        long stack = -1;
        try
        {
            unsafe = org.agrona.UnsafeAccess.UNSAFE;
            result = unsafe.objectFieldOffset(CompletableFuture.class.getDeclaredField("result"));
            stack = unsafe.objectFieldOffset(CompletableFuture.class.getDeclaredField("stack"));
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError ex)
        {
            LoggerFactory.getLogger(FutureRecycler.class).debug("recycled futures are not reused on this JVM", ex);
            unsafe = null;
        }
        UNSAFE = unsafe;
        RESULT = result;
        STACK = stack;
        SUPPORTED = unsafe != null;
    }

    private FutureRecycler()
    {
    }

    /** Clears the outcome and the (empty) stack of dependents of {@code future}, which is done. */
    static void reset(final CompletableFuture<?> future)
    {
        UNSAFE.putObjectVolatile(future, STACK, null);
        UNSAFE.putObjectVolatile(future, RESULT, null);
    }
}
