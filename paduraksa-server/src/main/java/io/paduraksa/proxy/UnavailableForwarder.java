package io.paduraksa.proxy;

import io.paduraksa.gate.RequestState;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The forwarder used until upstream forwarding exists: every forwarded request is answered
 * {@code 502 Bad Gateway}, as a proxy answers when no upstream can be reached, and the first one
 * logs a warning saying why. Nothing is sent anywhere.
 */
public final class UnavailableForwarder implements Forwarder {
    private static final Logger LOG = LoggerFactory.getLogger(UnavailableForwarder.class);
    private final AtomicBoolean warned = new AtomicBoolean();

    @Override
    public void forward(RequestState state, ForwardExchange exchange) {
        if (!warned.get() && warned.compareAndSet(false, true)) {
            LOG.warn("upstream forwarding is not available in this build: requests routed to cluster '{}' are answered 502",
                    state.cluster().name());
        }
        exchange.answer(state.snapshot().statusAnswer(502));
    }
}
