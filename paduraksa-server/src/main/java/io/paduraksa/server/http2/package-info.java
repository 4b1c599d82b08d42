/**
 * HTTP/2 protocol step (h2c prior knowledge, h2 after ALPN), on the connection's event loop, on our
 * own codec: {@link io.paduraksa.server.http2.Http2GateHandler} feeds the inbound bytes to
 * {@code io.paduraksa.http2.Http2Connection} (frames, HPACK, streams, flow control, protections) and
 * runs the gate per stream on a recycled exchange over the stream's copied fields; answers and
 * forwarded response heads are HPACK blocks written into the connection's outbound buffer, flushed
 * once per read batch. Nothing is allocated per gate-answered request beyond what
 * {@code Http2AnswerAllocationIT} bounds.
 *
 * <p>Each stream's life is one phase held by its {@code Http2Exchange} (from {@code GATE} through a
 * policy's wait, forwarding and responding to {@code DONE}, when it goes back to the pool), changed
 * only in named transitions; the handler's per-slot array indexes the streams whose frames it routes.
 */
package io.paduraksa.server.http2;
