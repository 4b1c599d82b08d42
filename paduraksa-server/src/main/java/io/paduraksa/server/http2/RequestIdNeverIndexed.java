package io.paduraksa.server.http2;

import io.netty.handler.codec.http2.Http2HeadersEncoder;
import io.netty.util.AsciiString;
import io.paduraksa.snapshot.SnapshotStore;

/**
 * Keeps the echoed request id ({@code forwarding.request_id.echo}) out of the HPACK dynamic table:
 * its value is new on every response, so indexing it would only push the fields that do repeat
 * (content type, cache control, the answers' own fields) out of the connection's table and make
 * later responses larger. Netty's encoder asks for every field it encodes: this compares the length
 * first and the name only when that matches (HTTP/2 names are lower case, as the configured one is
 * kept). One per connection; allocates nothing.
 */
final class RequestIdNeverIndexed implements Http2HeadersEncoder.SensitivityDetector {
    private final SnapshotStore store;

    RequestIdNeverIndexed(SnapshotStore store) {
        this.store = store;
    }

    @Override
    public boolean isSensitive(CharSequence name, CharSequence value) {
        AsciiString id = store.current().forwarding().requestIdHeader();
        return name.length() == id.length() && id.contentEquals(name);
    }
}
