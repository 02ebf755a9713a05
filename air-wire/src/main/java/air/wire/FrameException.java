package air.wire;

/** A frame that failed validation on receipt; the message names the peer it came from. */
public final class FrameException extends RuntimeException {

    private final int peer;

    public FrameException(int peer, String problem) {
        super("malformed frame from peer " + peer + ": " + problem);
        this.peer = peer;
    }

    public int peer() {
        return peer;
    }
}
