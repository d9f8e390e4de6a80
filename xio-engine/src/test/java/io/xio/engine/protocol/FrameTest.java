package io.xio.engine.protocol;

import io.xio.engine.Limits;
import io.xio.engine.ProtocolViolationException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FrameTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final Frame frame = new Frame().wrap(buffer, 16);

    @Test
    void writesAndReadsEveryHeaderFieldInPlace()
    {
        Frame.writeHeader(buffer, 16, 52, FrameType.RESPONSE, FrameFlags.FROM_ACCEPTOR | FrameFlags.RETRANSMIT,
            Long.MAX_VALUE, 42, 4, 2, Status.RESPONSE_LOST);
        buffer.putInt(16 + 32, 3, Frame.ORDER);
        buffer.putInt(16 + 36, 5, Frame.ORDER);
        assertThat(frame.frameLength()).isEqualTo(52);
        assertThat(frame.version()).isEqualTo(Frame.VERSION);
        assertThat(frame.type()).isEqualTo(FrameType.RESPONSE);
        assertThat(frame.flags()).isEqualTo(FrameFlags.FROM_ACCEPTOR | FrameFlags.RETRANSMIT);
        assertThat(frame.sessionId()).isEqualTo(Long.MAX_VALUE);
        assertThat(frame.requestId()).isEqualTo(42);
        assertThat(frame.headerLength()).isEqualTo(4);
        assertThat(frame.segmentCount()).isEqualTo(2);
        assertThat(frame.status()).isEqualTo(Status.RESPONSE_LOST);
        assertThat(frame.headerOffset()).isEqualTo(16 + 40);
        assertThat(frame.dataOffset()).isEqualTo(16 + 44);
        assertThat(frame.checkHeader(Limits.DEFAULT)).isNull();
        assertThat(frame.checkBody()).isNull();
    }

    @Test
    void aResponseWhoseDataWasWrittenIntoTheRequestersRegionCarriesOnlyTheLengths()
    {
        // 8 KiB in two segments were RDMA-written: the frame is header, table and a 4-byte application header
        Frame.writeHeader(buffer, 16, 44, FrameType.RESPONSE, FrameFlags.DATA_WRITTEN, 7, 9, 4, 2, Status.OK);
        buffer.putInt(16 + 32, 4096, Frame.ORDER);
        buffer.putInt(16 + 36, 4096, Frame.ORDER);
        assertThat(frame.checkHeader(Limits.DEFAULT)).isNull();
        assertThat(frame.checkBody()).isNull();
        // the flag means nothing on a request: its lengths must add up
        Frame.writeHeader(buffer, 16, 44, FrameType.REQUEST, FrameFlags.DATA_WRITTEN, 7, 9, 4, 2, Status.OK);
        assertThat(frame.checkBody()).contains("segment lengths add up to a 8236-byte frame");
    }

    @Test
    void namesWhatIsWrongWithABadHeader()
    {
        Frame.writeHeader(buffer, 16, 20, FrameType.REQUEST, 0, 1, 1, 0, 0, 0);
        assertThat(frame.checkHeader(Limits.DEFAULT)).contains("shorter than the 32-byte header");
        Frame.writeHeader(buffer, 16, 40, FrameType.REQUEST, 0, 1, 1, 9, 0, 0);
        assertThat(frame.checkHeader(Limits.DEFAULT)).contains("too short for 0 segments and a 9-byte header");
        Frame.writeHeader(buffer, 16, 40, FrameType.REQUEST, 0, 1, 1, -1, 0, 0);
        assertThat(frame.checkHeader(Limits.DEFAULT)).contains("application header length -1");
        Frame.writeHeader(buffer, 16, 40, 0, 0, 1, 1, 0, 0, 0);
        assertThat(frame.checkHeader(Limits.DEFAULT)).contains("unknown frame type 0");
        Frame.writeHeader(buffer, 16, 40, FrameType.REQUEST, 0, 1, 1, 0, 1, 0);
        buffer.putInt(16 + 32, -5, Frame.ORDER);
        assertThat(frame.checkHeader(Limits.DEFAULT)).isNull();
        assertThat(frame.checkBody()).contains("segment 0 has negative length -5");
    }

    @Test
    void controlBodiesRoundTripAndShortOnesAreViolations()
    {
        final byte[] body = new SetupCodec.Writer().u8(3).string("kv").map(Map.of("token", "s3cr3t"))
            .strings(List.of("tcp://a:1", "tcp://b:2")).i32(-7).i64(1L << 40).toBytes();
        final SetupCodec.Reader reader = new SetupCodec.Reader(new UnsafeBuffer(body), 0, body.length);
        assertThat(reader.u8()).isEqualTo(3);
        assertThat(reader.string()).isEqualTo("kv");
        assertThat(reader.map()).containsExactly(Map.entry("token", "s3cr3t"));
        assertThat(reader.strings()).containsExactly("tcp://a:1", "tcp://b:2");
        assertThat(reader.i32()).isEqualTo(-7);
        assertThat(reader.i64()).isEqualTo(1L << 40);
        assertThatThrownBy(reader::u8).isInstanceOf(ProtocolViolationException.class);

        final byte[] lying = {(byte)0xFF, (byte)0x7F, 'a'}; // claims a 32767-byte string
        assertThatThrownBy(() -> new SetupCodec.Reader(new UnsafeBuffer(lying), 0, lying.length).string())
            .isInstanceOf(ProtocolViolationException.class).hasMessageContaining("32767 bytes");
    }
}
