package io.xio.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;

/**
 * The outcome of a request or message. Cancelling it cancels the request at the peer too (the peer tries
 * to abort it; no response is delivered either way), and {@link #cancelOutcome()} then tells whether the
 * request is known to be aborted. {@link #receipt()} completes when the peer confirmed delivery, for calls
 * that asked for a receipt. Blocking waits may spin briefly before parking
 * ({@link XioEngine.Builder#callerSpin}), since a response often arrives sooner than a parked thread wakes.
 * Thread-safe.
 *
 * <p>The first {@link #whenComplete}, {@link #thenAccept} or {@link #handle} registered before completion is kept
 * in a field rather than on {@link CompletableFuture}'s stack, so it costs only the stage it returns; it runs
 * after the dependents registered through other methods. Other dependents behave as a CompletableFuture's.
 *
 * <p>A future of a call made with {@link CallOptions#withRecycledFuture()} is reused for a later call of its
 * session once its response {@link Message} was closed: from that close on it must not be touched at all (neither
 * read nor waited on, nor cancelled), as it may stand for another call by then. Take the response with one fast
 * action or one blocking wait ({@link #get()}, {@link #join()}) and close it there; a dependent of any other kind
 * (an async one above all) could still read the future after the close, when it is incomplete again, and would
 * never complete. A failed or cancelled one is never reused.
 */
public final class XioFuture<T> extends CompletableFuture<T>
{
    private static final byte WHEN_COMPLETE = 1;
    private static final byte THEN_ACCEPT = 2;
    private static final byte HANDLE = 3;
    /** {@link #fast} while a registration fills in its kind and stage, and once the fast action ran or was skipped. */
    private static final Object CLAIMING = new Object();
    private static final Object FIRED = new Object();
    private static final VarHandle FAST;
    private static final VarHandle EXTRAS;
    private static final VarHandle PHASE;
    /** {@link #phase}: not completed with its own response (the close of a response it does not hold is ignored). */
    private static final byte IDLE = 0;
    /** Completed with its response; its dependents and fast action may still be running. */
    private static final byte SETTLING = 1;
    /** Completed with its response, and done with the completion: the close recycles it. */
    private static final byte SETTLED = 2;
    /** The response was closed while the completion still ran: the completing thread recycles it when done. */
    private static final byte CLOSED = 3;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            FAST = lookup.findVarHandle(XioFuture.class, "fast", Object.class);
            EXTRAS = lookup.findVarHandle(XioFuture.class, "extras", Extras.class);
            PHASE = lookup.findVarHandle(XioFuture.class, "phase", byte.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The session's calls, which it belongs to; null for a future of no session. */
    private final Owner owner;
    /** A recycled future's own response message, rewrapped for each call; null for a future of one call. */
    private final Message response;
    /** Runs when {@link #response} is closed: puts this future back, when it was completed with it. */
    private final Runnable onResponseClosed;
    private long requestId;
    /** What few calls need (a receipt, a cancel's outcome), made on demand. */
    private volatile Extras extras;
    private volatile boolean buffersReleased;
    /** The fast action: null, {@link #CLAIMING}, the action itself, or {@link #FIRED}. */
    @SuppressWarnings("unused") // accessed through FAST
    private volatile Object fast;
    private byte fastKind;
    private CompletableFuture<Object> fastStage;
    /**
     * Whether it goes back to its pool when {@link #response} is closed, and who puts it back: a caller may close
     * the response from a dependent on the stack, or after a get that returned as soon as the result was set, while
     * the completing thread still walks the stack and fires; a reset then would hand those steps a later call's
     * future. So the close or the end of the completion, whichever comes second, resets it.
     */
    @SuppressWarnings("unused") // accessed through PHASE
    private volatile byte phase;

    /** A future of no session (a cancel tells nobody, waits do not spin); for tests in this package. */
    XioFuture(final long requestId, final boolean receipt)
    {
        this(requestId, receipt, null);
    }

    /**
     * A future of one call: the session layer makes it through a private lookup (only xio makes futures, and the
     * session package is not one this exported package may name).
     *
     * @param owner the session's calls; null for a future of no session
     */
    XioFuture(final long requestId, final boolean receipt, final Owner owner)
    {
        this(owner, null);
        this.requestId = requestId;
        if (receipt)
        {
            extras().receipt = new CompletableFuture<>();
        }
    }

    private XioFuture(final Owner owner, final Message response)
    {
        this.owner = owner;
        this.response = response;
        this.onResponseClosed = response == null ? null : this::recycle;
    }

    /**
     * A future to reuse, with its own response message (released), for the session layer (through a private
     * lookup); null when futures cannot be reused on this JVM.
     */
    static XioFuture<?> recyclable(final Owner owner, final Message response)
    {
        return FutureRecycler.SUPPORTED ? new XioFuture<>(owner, response) : null;
    }

    /**
     * What a future needs of the session that made it: one per session, made by the session layer through a private
     * lookup (which holds it as an Object: it cannot name this type, and this exported package names nothing of
     * that one, hence the JDK function types). Each session's two callbacks serve all its futures, so each call site
     * sees one class; and the future holds one reference for all three, so a plain call's future is no bigger.
     */
    static final class Owner
    {
        /** How long a blocking wait spins first: the engine's caller spin. */
        final long spinNanos;
        /** The application cancelled a future, of the request with the given id. */
        final ObjLongConsumer<XioFuture<?>> onCancel;
        /** A recycled future is incomplete again, for a later call. */
        final Consumer<XioFuture<?>> onRecycle;

        Owner(final long spinNanos, final ObjLongConsumer<XioFuture<?>> onCancel,
            final Consumer<XioFuture<?>> onRecycle)
        {
            this.spinNanos = spinNanos;
            this.onCancel = onCancel;
            this.onRecycle = onRecycle;
        }
    }

    /** Readies a recycled future (back through its owner's {@code onRecycle}) for request {@code requestId}. */
    void reuse(final long requestId)
    {
        this.requestId = requestId;
    }

    /** A recycled future's own response message, or null. */
    Message response()
    {
        return response;
    }

    /** What closing {@link #response()} must run, or null. */
    Runnable onResponseClosed()
    {
        return onResponseClosed;
    }

    /** The peer answered the cancel of this future's request: whether it aborted it. */
    void cancelAnswered(final boolean aborted)
    {
        extras().cancelAnswer = aborted;
        settleCancelOutcome();
    }

    /** A cancel is over: if nothing told whether it aborted the request, it is not known to have. */
    void cancelUnanswered()
    {
        final Extras state = extras();
        if (state.cancelAnswer == null)
        {
            state.cancelAnswer = false;
        }
        settleCancelOutcome();
    }

    /** No link references the request's buffers any more. */
    void buffersReleased()
    {
        buffersReleased = true;
        if (extras != null)
        {
            settleCancelOutcome();
        }
    }

    /** The peer confirmed delivery. */
    void receiptArrived()
    {
        final Extras state = extras;
        if (state != null && state.receipt != null)
        {
            state.receipt.complete(null);
        }
    }

    /** What a few calls need besides the outcome. */
    private static final class Extras
    {
        CompletableFuture<Void> receipt;
        volatile CompletableFuture<Boolean> cancelOutcome;
        volatile Boolean cancelAnswer;
    }

    private Extras extras()
    {
        final Extras existing = extras;
        if (existing != null)
        {
            return existing;
        }
        final Extras made = new Extras();
        return EXTRAS.compareAndSet(this, null, made) ? made : extras;
    }

    /** The request's id within its session. */
    public long requestId()
    {
        return requestId;
    }

    /** Completes when the peer confirmed delivery; fails if the call failed first. */
    public CompletableFuture<Void> receipt()
    {
        final Extras known = extras;
        final CompletableFuture<Void> receipt = known == null ? null : known.receipt;
        if (receipt == null)
        {
            throw new IllegalStateException("request " + requestId + " did not ask for a receipt");
        }
        return receipt;
    }

    /**
     * After a cancel (of this future, or by {@link Session#cancel(long, long)} or {@link Session#cancelAll()}): true
     * when the request is known to be aborted, that is, it never left this side, or the peer stopped it before
     * answering it. The peer stops a call that its handler has and has not answered yet (the handler may well have
     * begun the work; it hears of the cancel through {@link InboundRequest#onCancel}), or one that waits unstarted in a
     * queue (in a {@link io.xio.engine.support.QueueingHandler}, which then skips it, or behind a full connection, from
     * where it reaches the handler already cancelled). False when the peer had answered it already or never got it, and
     * whenever it is not known: it was written on a connection that was down when cancelled (the peer is not told) or
     * that dropped before the peer answered, or a range cancel's count does not tell request by request (the peer
     * answers a range with a count only, so a request of a range is known to be aborted only when the count covers
     * every id of its CANCEL; the count itself is the {@link Session#cancel(long, long)} future's).
     *
     * <p>It completes only once xio no longer reads the request's buffers (nor lets the peer write into its output
     * buffer), so they may be reused then. It stays incomplete when the request finished otherwise before the
     * cancel (answered, failed, timed out).
     */
    public CompletableFuture<Boolean> cancelOutcome()
    {
        final Extras state = extras();
        CompletableFuture<Boolean> outcome = state.cancelOutcome;
        if (outcome == null)
        {
            synchronized (this)
            {
                outcome = state.cancelOutcome;
                if (outcome == null)
                {
                    outcome = new CompletableFuture<>();
                    state.cancelOutcome = outcome;
                }
            }
            settleCancelOutcome();
        }
        return outcome;
    }

    private void settleCancelOutcome()
    {
        final Extras state = extras;
        final Boolean answer = state == null ? null : state.cancelAnswer;
        if (answer != null && buffersReleased)
        {
            final CompletableFuture<Boolean> outcome = state.cancelOutcome;
            if (outcome != null)
            {
                outcome.complete(answer);
            }
        }
    }

    @Override
    public boolean complete(final T value)
    {
        final boolean own = response != null && value == response;
        if (own)
        {
            phase = SETTLING; // before the result is visible: the close may follow at once
        }
        if (!super.complete(value))
        {
            if (own)
            {
                phase = IDLE;
            }
            return false;
        }
        fire(value, null);
        if (own && !PHASE.compareAndSet(this, SETTLING, SETTLED))
        {
            reset(); // closed meanwhile: the close left it to this thread
        }
        return true;
    }

    @Override
    public boolean completeExceptionally(final Throwable ex)
    {
        final Extras state = extras;
        if (state != null && state.receipt != null)
        {
            state.receipt.completeExceptionally(ex);
        }
        if (!super.completeExceptionally(ex))
        {
            return false;
        }
        fire(null, ex);
        return true;
    }

    @Override
    public boolean cancel(final boolean mayInterruptIfRunning)
    {
        final RequestCancelledException cancelled =
            new RequestCancelledException("request " + requestId + " was cancelled");
        if (!super.completeExceptionally(cancelled))
        {
            return false;
        }
        final Extras state = extras;
        if (state != null && state.receipt != null)
        {
            state.receipt.cancel(false);
        }
        fire(null, cancelled);
        if (owner != null)
        {
            owner.onCancel.accept(this, requestId);
        }
        else
        {
            buffersReleased = true;
            extras().cancelAnswer = false;
            settleCancelOutcome();
        }
        return true;
    }

    @Override
    public void obtrudeValue(final T value)
    {
        phase = IDLE;
        super.obtrudeValue(value);
        fire(value, null);
    }

    @Override
    public void obtrudeException(final Throwable ex)
    {
        phase = IDLE;
        super.obtrudeException(ex);
        fire(null, ex);
    }

    /** Completes through {@link #complete}, so that the fast action runs: CompletableFuture's bypasses it. */
    @Override
    public CompletableFuture<T> completeAsync(final Supplier<? extends T> supplier, final Executor executor)
    {
        Objects.requireNonNull(supplier, "supplier");
        executor.execute(() ->
        {
            try
            {
                complete(supplier.get());
            }
            catch (final Throwable ex)
            {
                completeExceptionally(ex);
            }
        });
        return this;
    }

    @Override
    public CompletableFuture<T> completeAsync(final Supplier<? extends T> supplier)
    {
        return completeAsync(supplier, defaultExecutor());
    }

    @Override
    public CompletableFuture<T> whenComplete(final BiConsumer<? super T, ? super Throwable> action)
    {
        Objects.requireNonNull(action, "action");
        final CompletableFuture<T> stage = fastStage(WHEN_COMPLETE, action);
        return stage != null ? stage : super.whenComplete(action);
    }

    @Override
    public CompletableFuture<Void> thenAccept(final Consumer<? super T> action)
    {
        Objects.requireNonNull(action, "action");
        final CompletableFuture<Void> stage = fastStage(THEN_ACCEPT, action);
        return stage != null ? stage : super.thenAccept(action);
    }

    @Override
    public <U> CompletableFuture<U> handle(final BiFunction<? super T, Throwable, ? extends U> fn)
    {
        Objects.requireNonNull(fn, "fn");
        final CompletableFuture<U> stage = fastStage(HANDLE, fn);
        return stage != null ? stage : super.handle(fn);
    }

    @Override
    public int getNumberOfDependents()
    {
        final Object action = fast;
        return super.getNumberOfDependents() + (action != null && action != FIRED ? 1 : 0);
    }

    /**
     * Keeps {@code action} as this future's one fast action, with its stage: null when the future is done already
     * or has one (CompletableFuture's own way is taken then). A completion that comes while the kind and stage are
     * filled in finds {@link #CLAIMING} and leaves the action to this thread, which then runs it the usual way.
     */
    @SuppressWarnings("unchecked")
    private <U> CompletableFuture<U> fastStage(final byte kind, final Object action)
    {
        if (isDone() || fast != null || !FAST.compareAndSet(this, null, CLAIMING))
        {
            return null;
        }
        final CompletableFuture<Object> stage = new CompletableFuture<>();
        fastKind = kind;
        fastStage = stage;
        if (FAST.compareAndSet(this, CLAIMING, action))
        {
            return (CompletableFuture<U>)stage;
        }
        fastStage = null; // completed meanwhile: the future is done, so CompletableFuture's way runs it at once
        return null;
    }

    /** After this future completed: runs the fast action, if one is registered, and settles its stage. */
    @SuppressWarnings("unchecked")
    private void fire(final T value, final Throwable failure)
    {
        final Object action = FAST.getAndSet(this, FIRED);
        if (action == null || action == CLAIMING || action == FIRED)
        {
            return;
        }
        final CompletableFuture<Object> stage = fastStage;
        fastStage = null;
        switch (fastKind)
        {
            case WHEN_COMPLETE ->
            {
                Throwable outcome = failure;
                try
                {
                    ((BiConsumer<? super T, ? super Throwable>)action).accept(value, failure);
                }
                catch (final Throwable ex)
                {
                    if (outcome == null)
                    {
                        outcome = ex;
                    }
                    else if (outcome != ex)
                    {
                        outcome.addSuppressed(ex);
                    }
                }
                if (outcome == null)
                {
                    stage.complete(value);
                }
                else
                {
                    stage.completeExceptionally(wrapped(outcome));
                }
            }
            case THEN_ACCEPT ->
            {
                if (failure != null)
                {
                    stage.completeExceptionally(wrapped(failure));
                    return;
                }
                try
                {
                    ((Consumer<? super T>)action).accept(value);
                    stage.complete(null);
                }
                catch (final Throwable ex)
                {
                    stage.completeExceptionally(wrapped(ex));
                }
            }
            default ->
            {
                try
                {
                    stage.complete(((BiFunction<? super T, Throwable, ?>)action).apply(value, failure));
                }
                catch (final Throwable ex)
                {
                    stage.completeExceptionally(wrapped(ex));
                }
            }
        }
    }

    /** As CompletableFuture hands a failure to a dependent stage. */
    private static Throwable wrapped(final Throwable failure)
    {
        return failure instanceof CompletionException ? failure : new CompletionException(failure);
    }

    /**
     * The response message was closed. A future completed with it is made incomplete again and goes back to its
     * session's pool; any other (cancelled, failed) is left to the collector.
     */
    private void recycle()
    {
        if (PHASE.compareAndSet(this, SETTLING, CLOSED) || !PHASE.compareAndSet(this, SETTLED, IDLE))
        {
            return; // its completion still runs (and resets it when done), or it is not to be reused
        }
        reset();
    }

    private void reset()
    {
        phase = IDLE;
        FutureRecycler.reset(this);
        fastStage = null;
        fastKind = 0;
        extras = null;
        buffersReleased = false;
        requestId = 0;
        FAST.setRelease(this, null);
        owner.onRecycle.accept(this);
    }

    /** Throws a cancelled request's {@link RequestCancelledException} itself, on every JDK. */
    @Override
    public T get() throws InterruptedException, ExecutionException
    {
        spin(spinNanos());
        try
        {
            return super.get();
        }
        catch (final CancellationException e)
        {
            throw unwrapped(e);
        }
    }

    /** Throws a cancelled request's {@link RequestCancelledException} itself, on every JDK. */
    @Override
    public T get(final long timeout, final TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException
    {
        spin(Math.min(spinNanos(), unit.toNanos(timeout)));
        try
        {
            return super.get(timeout, unit);
        }
        catch (final CancellationException e)
        {
            throw unwrapped(e);
        }
    }

    /** Throws a cancelled request's {@link RequestCancelledException} itself, on every JDK. */
    @Override
    public T join()
    {
        spin(spinNanos());
        try
        {
            return super.join();
        }
        catch (final CancellationException e)
        {
            throw unwrapped(e);
        }
    }

    /** Throws a cancelled request's {@link RequestCancelledException} itself, on every JDK. */
    @Override
    public T getNow(final T valueIfAbsent)
    {
        try
        {
            return super.getNow(valueIfAbsent);
        }
        catch (final CancellationException e)
        {
            throw unwrapped(e);
        }
    }

    /**
     * On JDK 25 CompletableFuture's get, join and getNow throw a new CancellationException ("get", "join", "getNow")
     * whose cause is the one the future was completed with; on 17 they throw that one. Callers catch
     * RequestCancelledException, so it is handed on as it was stored.
     */
    private static CancellationException unwrapped(final CancellationException thrown)
    {
        return thrown.getCause() instanceof CancellationException stored ? stored : thrown;
    }

    private long spinNanos()
    {
        final Owner calls = owner;
        return calls == null ? 0 : calls.spinNanos;
    }

    private void spin(final long nanos)
    {
        if (nanos <= 0 || isDone())
        {
            return;
        }
        final long end = System.nanoTime() + nanos;
        while (!isDone() && System.nanoTime() < end)
        {
            Thread.onSpinWait();
        }
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture()
    {
        return new CompletableFuture<>();
    }
}
