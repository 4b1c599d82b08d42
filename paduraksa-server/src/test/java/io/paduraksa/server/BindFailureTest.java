package io.paduraksa.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.paduraksa.config.ListenerSpec;
import java.io.IOException;
import java.net.BindException;
import java.nio.channels.UnresolvedAddressException;
import org.junit.jupiter.api.Test;

/** The one line a listener that cannot bind ends the start with (StartupIT sees it from a real process). */
class BindFailureTest {
    private static final ListenerSpec NAMED = new ListenerSpec("public", "127.0.0.1:8080", null, null, false, null, false, null, null);
    private static final ListenerSpec UNNAMED = new ListenerSpec(null, "[::1]:443", null, null, false, null, false, null, null);

    /** The first cause is the text Netty's epoll transport gives (seen in StartupIT's process log). */
    @Test
    void namesTheListenerItsPlaceAndAddressWithTheSystemsReason() {
        assertThat(EdgeServer.bindFailure(0, NAMED, new IOException("bind(..) failed with error(-98): Address already in use")))
                .isEqualTo("listener 'public' (listeners[0]) cannot bind 127.0.0.1:8080: Address already in use");
        assertThat(EdgeServer.bindFailure(2, UNNAMED, new BindException("Permission denied")))
                .isEqualTo("listener listeners[2] cannot bind [::1]:443: Permission denied");
        assertThat(EdgeServer.bindFailure(1, NAMED, new UnresolvedAddressException()))
                .isEqualTo("listener 'public' (listeners[1]) cannot bind 127.0.0.1:8080: cannot resolve the host");
    }
}
