package io.xio.engine.session.admission;

import io.xio.engine.Outbound;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

class DedupWindowTest
{
    private static Outbound response(final int size)
    {
        final ByteBuffer header = ByteBuffer.allocate(size);
        for (int i = 0; i < size; i++)
        {
            header.put(i, (byte)i);
        }
        return Outbound.of(header);
    }

    private static void answer(final DedupWindow window, final long id, final int size)
    {
        assertThat(window.begin(id, "call " + id)).isEqualTo(DedupWindow.Verdict.NEW);
        window.complete(id, 0, response(size), 1 << 20);
    }

    @Test
    void aSlotGivesUpALargeKeptResponseAtTheNextSmallOne()
    {
        final DedupWindow window = new DedupWindow(4);
        answer(window, 1, 512 * 1024);
        assertThat(window.keptCapacity(1)).isEqualTo(512 * 1024);
        assertThat(window.retained(1).bytes()).hasSize(512 * 1024);

        answer(window, 5, 100); // the same slot
        assertThat(window.keptCapacity(5)).isEqualTo(128);
        final DedupWindow.Retained kept = window.retained(5);
        assertThat(kept.bytes()).hasSize(100);
        assertThat(kept.bytes()[99]).isEqualTo((byte)99);
        assertThat(window.retained(1)).as("slot moved on").isNull();
    }

    @Test
    void smallResponsesKeepReusingTheSlotsArray()
    {
        final DedupWindow window = new DedupWindow(4);
        answer(window, 1, 3000);
        assertThat(window.keptCapacity(1)).isEqualTo(DedupWindow.Kept.SMALL);
        answer(window, 5, 200);
        answer(window, 9, 4096);
        assertThat(window.keptCapacity(9)).isEqualTo(DedupWindow.Kept.SMALL);
        assertThat(window.retained(9).bytes()).hasSize(4096);
    }

    @Test
    void anAbandonedIdFreesItsSlotAndForgetsItsCall()
    {
        final DedupWindow window = new DedupWindow(4);
        assertThat(window.begin(3, "call 3")).isEqualTo(DedupWindow.Verdict.NEW);
        assertThat(window.call(3)).isEqualTo("call 3");
        window.abandon(3);
        assertThat(window.call(3)).isNull();
        assertThat(window.awaitCall(3)).isNull();
        assertThat(window.begin(3, "call 3 again")).isEqualTo(DedupWindow.Verdict.NEW);
        assertThat(window.call(3)).isEqualTo("call 3 again");
    }
}
