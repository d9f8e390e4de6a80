package io.xio.spring.kotlin;

import io.xio.spring.observation.XioInstrumentation;
import kotlin.coroutines.AbstractCoroutineContextElement;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.ThreadContextElement;

import java.util.function.Supplier;

/**
 * A service coroutine's element that makes its call's state current on whatever thread the coroutine runs or resumes
 * on (the current {@code XioServerCall}, with it the call's deadline, and the context the call arrived with: security
 * context, MDC, trace), and gives the thread back what it held when the coroutine suspends or ends. Without it, a
 * coroutine resumed by another call would run in that call's state. Kotlin's coroutine machinery calls it on the
 * thread the coroutine runs on; immutable otherwise.
 */
final class CallStateElement extends AbstractCoroutineContextElement
    implements ThreadContextElement<XioInstrumentation.Scope>
{
    private static final CoroutineContext.Key<CallStateElement> KEY = new CoroutineContext.Key<>()
    {
    };

    private final Supplier<XioInstrumentation.Scope> enter;

    /** @param enter makes the call's state current on this thread; the scope it returns restores the thread's own */
    CallStateElement(final Supplier<XioInstrumentation.Scope> enter)
    {
        super(KEY);
        this.enter = enter;
    }

    @Override
    public XioInstrumentation.Scope updateThreadContext(final CoroutineContext context)
    {
        return enter.get();
    }

    @Override
    public void restoreThreadContext(final CoroutineContext context, final XioInstrumentation.Scope previous)
    {
        previous.close();
    }
}
