package io.paduraksa.server.http2;

import io.netty.util.Recycler;
import io.paduraksa.gate.RequestState;
import io.paduraksa.proxy.ForwardExchange;
import io.paduraksa.respond.PrecomputedResponse;

/**
 * Per-stream request state for HTTP/2: the gate's {@link RequestState} and view, taken from a
 * {@link Recycler} when a stream's headers arrive and returned when the request ends, so two live
 * streams never share one. On the event loop, taking and returning allocate nothing.
 */
final class Http2Exchange implements ForwardExchange {
    private static final Recycler<Http2Exchange> RECYCLER = new Recycler<>() {
        @Override
        protected Http2Exchange newObject(Handle<Http2Exchange> handle) {
            return new Http2Exchange(handle);
        }
    };

    private final Recycler.Handle<Http2Exchange> handle;
    final RequestState state = new RequestState();
    final Http2RequestView view = new Http2RequestView();
    Http2GateHandler handler;
    int streamId;
    boolean head;
    boolean open;

    private Http2Exchange(Recycler.Handle<Http2Exchange> handle) {
        this.handle = handle;
    }

    static Http2Exchange take(Http2GateHandler handler, int streamId, boolean head) {
        Http2Exchange e = RECYCLER.get();
        e.handler = handler;
        e.streamId = streamId;
        e.head = head;
        e.open = true;
        return e;
    }

    @Override
    public void answer(PrecomputedResponse response) {
        if (open) {
            handler.answer(this, response);
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Ends the request and returns this object to the pool. */
    void recycle() {
        open = false;
        handler = null;
        view.clear();
        state.clear();
        handle.recycle(this);
    }
}
