package io.paduraksa.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** {@link Http2FrameWriter}: what it writes, read back by {@link Http2FrameReader}. */
class Http2FrameWriterTest {
    @Test
    void every_frame_written_reads_back() {
        ByteBuf out = TestBuffers.buffer();
        Http2FrameWriter.settingsHeader(out, 2);
        Http2FrameWriter.setting(out, Http2Frames.SETTINGS_MAX_CONCURRENT_STREAMS, 100);
        Http2FrameWriter.setting(out, Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20);
        Http2FrameWriter.settingsAck(out);
        Http2FrameWriter.data(out, 1, Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), 0, 3, true);
        Http2FrameWriter.ping(out, 42, true);
        Http2FrameWriter.windowUpdate(out, 0, 65535);
        Http2FrameWriter.rstStream(out, 3, Http2ErrorCodes.CANCEL);
        Http2FrameWriter.goAway(out, 5, Http2ErrorCodes.ENHANCE_YOUR_CALM);
        RecordingFrameListener listener = new RecordingFrameListener();
        new Http2FrameReader(1024).read(out, listener);
        assertThat(listener.events).containsExactly("SETTINGS {3=100, 4=1048576}", "SETTINGS_ACK", "DATA 1 pad=0 end=true 010203",
                "PING 42 ack=true", "WINDOW_UPDATE 0 65535", "RST_STREAM 3 8", "GOAWAY 5 11 ");
    }
}
