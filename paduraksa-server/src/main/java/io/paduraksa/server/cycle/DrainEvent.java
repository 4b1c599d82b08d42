package io.paduraksa.server.cycle;

/**
 * Fired into every open connection when the server stops: HTTP/2 answers with GOAWAY and closes
 * once its streams are done; HTTP/1.1 closes at once when idle, else after the current request.
 */
public final class DrainEvent {
    public static final DrainEvent INSTANCE = new DrainEvent();

    private DrainEvent() {
    }
}
