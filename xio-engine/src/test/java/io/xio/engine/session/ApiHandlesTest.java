package io.xio.engine.session;

import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.XioFuture;
import io.xio.engine.memory.BufferPool;
import io.xio.engine.memory.Slab;
import io.xio.engine.protocol.Frame;
import io.xio.engine.protocol.FrameType;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every member of an API type that the session layer binds through a private lookup ({@link Futures},
 * {@link Messages}), called once: {@code invokeExact} checks a call's types only when it runs, so a handle whose
 * binding or call site no longer matches fails here rather than on some rarely taken path of a live connection.
 */
class ApiHandlesTest
{
    @Test
    void aFutureIsMadeAndSettledThroughItsHandles() throws Exception
    {
        final List<Long> cancelled = new ArrayList<>();
        final XioFuture<Object> future = Futures.newFuture(5, true, Futures.owner(0, (cancel, id) -> cancelled.add(id),
            recycled ->
            {
            }));
        assertThat(future.requestId()).isEqualTo(5);
        assertThat(Futures.response(future)).isNull();
        assertThat(Futures.onResponseClosed(future)).isNull();

        Futures.receiptArrived(future);
        assertThat(future.receipt()).isCompleted();

        assertThat(future.cancel(false)).isTrue();
        assertThat(cancelled).containsExactly(5L);
        Futures.cancelAnswered(future, true);
        Futures.cancelUnanswered(future); // told already: stays aborted
        Futures.buffersReleased(future);
        assertThat(future.cancelOutcome().get(1, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aRecycledFutureGoesBackThroughItsHandles()
    {
        final List<XioFuture<?>> recycled = new ArrayList<>();
        final XioFuture<Message> future = Futures.newRecyclable(Futures.owner(0, (cancel, id) ->
        {
        }, recycled::add));
        if (future == null)
        {
            return; // futures cannot be reused on this JVM
        }
        Futures.reuse(future, 9);
        assertThat(future.requestId()).isEqualTo(9);
        final Message response = Futures.response(future);
        assertThat(response).isNotNull();
        assertThat(response.isReleased()).isTrue();
        assertThat(Futures.onResponseClosed(future)).isNotNull();

        final BufferPool pool = new BufferPool("handles");
        final Slab slab = frame(pool, 9, "ok");
        Messages.rewrap(response, slab, new Frame().wrap(slab.buffer(), 0), null, Futures.onResponseClosed(future));
        slab.release();
        future.complete(response);
        response.close();
        assertThat(recycled).containsExactly(future);
        assertThat(future.isDone()).isFalse();
    }

    @Test
    void aMessageIsMadeRewrappedAndPlacedThroughItsHandles()
    {
        final BufferPool pool = new BufferPool("handles");
        final LeakTracker leaks = new LeakTracker();
        final Slab first = frame(pool, 3, "one");
        final Message message = Messages.of(first, new Frame().wrap(first.buffer(), 0), leaks);
        first.release();
        assertThat(message.requestId()).isEqualTo(3);
        assertThat(message.headerLength()).isEqualTo(3);
        assertThat(leaks.unreleased()).hasSize(1);
        message.close();
        assertThat(leaks.unreleased()).isEmpty();

        final Message reused = Messages.released();
        assertThat(reused.isReleased()).isTrue();
        final Slab second = frame(pool, 4, "four");
        final int[] closes = new int[1];
        assertThat(Messages.rewrap(reused, second, new Frame().wrap(second.buffer(), 0), leaks, () -> closes[0]++))
            .isSameAs(reused);
        second.release();
        assertThat(reused.requestId()).isEqualTo(4);
        assertThat(leaks.unreleased()).hasSize(1);
        Messages.placeIn(reused, ByteBuffer.allocate(8), 0);
        assertThat(reused.inOutput()).isTrue();
        reused.close();
        assertThat(closes[0]).isEqualTo(1);
        assertThat(leaks.unreleased()).isEmpty();
    }

    @Test
    void metadataHandedOverIsSealed()
    {
        final Outbound message = Outbound.of(ByteBuffer.allocate(1)).metadata(new Metadata().add("tenant", "a"));
        Messages.sealMetadata(message);
        assertThat(message.metadata().isReadOnly()).isTrue();
    }

    /** A REQUEST frame of {@code requestId} with {@code header} and no data segment, at the slab's start. */
    private static Slab frame(final BufferPool pool, final long requestId, final String header)
    {
        final int length = (int)Frame.frameLength(header.length(), 0, 0);
        final Slab slab = pool.acquire(length);
        Frame.writeHeader(slab.buffer(), 0, length, FrameType.REQUEST, 0, 1, requestId, header.length(), 0, 0);
        slab.buffer().putStringWithoutLengthAscii(Frame.HEADER_LENGTH, header);
        return slab;
    }
}
