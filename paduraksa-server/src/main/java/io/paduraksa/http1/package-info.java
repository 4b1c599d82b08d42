/**
 * Step: protocol decoding for HTTP/1.1 (RFC 9112), both directions: the wire code that the client
 * side ({@code server.http1}, requests) and the upstream side ({@code proxy.http1}, responses)
 * share. Byte classes and in-place comparisons ({@link io.paduraksa.http1.Http1Bytes}), the
 * re-pointable view ({@link io.paduraksa.http1.AsciiView}), the field-position store
 * ({@link io.paduraksa.http1.FieldPositions}) and the base of a decoder whose consumer may hold a
 * message ({@link io.paduraksa.http1.ResumableDecoder}).
 *
 * <p>Thread: the event loop of the connection being decoded (client or upstream). Nothing here
 * allocates per message; tables are built at class load. This package imports nothing from
 * {@code server} or {@code proxy}: both stand on it.
 */
package io.paduraksa.http1;
