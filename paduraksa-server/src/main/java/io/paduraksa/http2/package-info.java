/**
 * Step: protocol decoding for HTTP/2 (RFC 9113, RFC 7541), both directions: the wire code that the
 * client side ({@code server.http2}) and the upstream client ({@code proxy.http2}) run on, the twin
 * of {@code io.paduraksa.http1}.
 *
 * <ul>
 *   <li>Frames: {@link io.paduraksa.http2.Http2FrameReader} reads frames from the inbound buffer and
 *       reports each to an {@link io.paduraksa.http2.Http2FrameListener} with primitives and
 *       positions (no frame object), resumable at any split point, with the checks of RFC 9113
 *       sections 4 and 6; {@link io.paduraksa.http2.Http2FrameWriter} writes frames into the
 *       caller's pooled buffer (no promise or future per frame); constants in
 *       {@link io.paduraksa.http2.Http2Frames} and {@link io.paduraksa.http2.Http2ErrorCodes}.</li>
 *   <li>HPACK: {@link io.paduraksa.http2.HpackDecoder} (dynamic table as bytes in one buffer,
 *       {@link io.paduraksa.http2.HpackDynamicTable}; {@link io.paduraksa.http2.HpackHuffman} into a
 *       reused scratch area; fields as positions to an {@link io.paduraksa.http2.HpackFieldSink})
 *       with {@link io.paduraksa.http2.Http2FieldValidator} (RFC 9113 sections 8.1-8.5) run on every
 *       field; {@link io.paduraksa.http2.HpackEncoder} (static indices, literals without
 *       indexing).</li>
 *   <li>Connection: {@link io.paduraksa.http2.Http2Connection}, role-neutral (a server and a client
 *       differ in which stream ids the peer opens): preface, SETTINGS and ACK, PING, GOAWAY and the
 *       graceful two-step drain, RST_STREAM, PRIORITY ignored, PUSH_PROMISE refused, stream and
 *       connection flow control with batched WINDOW_UPDATE, a bounded stream table of parallel
 *       arrays, one outbound buffer flushed per read batch, and the protections (concurrent
 *       streams, rapid reset, CONTINUATION, empty-frame and control-frame floods, stalled windows,
 *       content-length against DATA); what a stream means is its
 *       {@link io.paduraksa.http2.Http2Connection.Handler}'s.</li>
 *   <li>Errors are values: {@link io.paduraksa.http2.Http2Violation} names the rule, the RFC error
 *       code and whether it ends the stream or the connection.</li>
 * </ul>
 *
 * <p>Checked against Netty's {@code DefaultHttp2FrameReader} and {@code HpackDecoder} by a seeded
 * differential fuzz (same verdicts, same fields), against RFC 7541 Appendix C, and by one
 * conformance case per rule. Thread: the event loop of the connection being decoded. After
 * construction nothing here allocates per frame, block or field (allocation tests). This package
 * imports nothing from {@code server} or {@code proxy}: both are to stand on it.
 */
package io.paduraksa.http2;
