/**
 * Step: protocol decoding for HTTP/1.1 (RFC 9112), both directions: the wire code that the client
 * side ({@code server.http1}, requests) and the upstream side ({@code proxy.http1}, responses)
 * share, so that a framing fix is made once. Byte classes and in-place comparisons
 * ({@link io.paduraksa.http1.Http1Bytes}), the re-pointable view ({@link io.paduraksa.http1.AsciiView}),
 * field positions ({@link io.paduraksa.http1.FieldPositions}) and the section that holds them
 * ({@link io.paduraksa.http1.Http1FieldSection}), the end of a head or trailer section
 * ({@link io.paduraksa.http1.Http1SectionScanner}), field lines and chunk-size lines
 * ({@link io.paduraksa.http1.Http1LineParser}), the chunked body
 * ({@link io.paduraksa.http1.Http1ChunkedBody}), the one error type
 * ({@link io.paduraksa.http1.Http1Error}) and the decoder base
 * ({@link io.paduraksa.http1.ResumableDecoder}).
 *
 * <p>What stays with each side: the start line and the framing rules (request framing and limits in
 * {@code server.http1.Http1HeadParser}, RFC 9112 section 6.3 for responses in
 * {@code proxy.http1.Http1ResponseParser}), what follows the last chunk (requests drop trailers,
 * responses pass them on) and where the two rule sets differ ({@link io.paduraksa.http1.Http1LineParser#forRequests()},
 * {@link io.paduraksa.http1.Http1LineParser#forResponses()}).
 *
 * <p>Thread: the event loop of the connection being decoded (client or upstream). Nothing here
 * allocates per message; tables are built at class load. This package imports nothing from
 * {@code server} or {@code proxy}: both stand on it.
 */
package io.paduraksa.http1;
