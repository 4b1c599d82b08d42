package io.paduraksa.server.cycle;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.paduraksa.proxy.ForwardCall;

/**
 * The request body a stream holds while it may not go upstream yet (an asynchronous policy
 * decides, or the upstream head is not written): the retained chunks in one composite buffer, then
 * handed to the forwarder or released. One per HTTP/2 exchange (recycled, so holding allocates only
 * the composite, from the chunks' own allocator) and one per HTTP/3 stream handler (made with the
 * handler: the slot goes back to its pool at the request's end, before the stream's last release).
 *
 * <p>Thread: the request's event loop.
 */
public final class HeldBody {
    private CompositeByteBuf held;

    /** Keeps {@code data}; its reference passes here. */
    public void add(ByteBuf data) {
        if (held == null) {
            held = data.alloc().compositeBuffer();
        }
        held.addComponent(true, data);
    }

    public boolean isReadable() {
        return held != null && held.isReadable();
    }

    public int readableBytes() {
        return held == null ? 0 : held.readableBytes();
    }

    /** What is held, to be read in place (a policy inspecting the body); null when nothing is. */
    public ByteBuf bytes() {
        return held;
    }

    /** The upstream may take the body: what is held goes to {@code call} (or is released when empty), then the end when {@code ended}. */
    public void sendTo(ForwardCall call, boolean ended) {
        CompositeByteBuf p = held;
        held = null;
        if (p != null && p.isReadable()) {
            call.requestBody(p);
        } else if (p != null) {
            p.release();
        }
        if (ended) {
            call.requestEnd();
        }
    }

    public void release() {
        CompositeByteBuf p = held;
        held = null;
        if (p != null) {
            p.release();
        }
    }
}
