package air.launcher;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The first line a peer sends on the event channel, {@code air-events-hello/1 peer=R token=T}: it
 * proves that the connection comes from the peer the launcher started as rank R, whose
 * environment alone holds R's token ({@code AIR_EVENTS_TOKEN}, random per rank and launch), so a
 * stranger cannot feed the supervisors events, and one peer cannot speak for another.
 */
final class EventGreeting {

    /** What the line begins with: the greeting and its version. */
    static final String PREFIX = "air-events-hello/1 ";

    private EventGreeting() {
    }

    /** The greeting of peer {@code rank} with {@code token}, without the line break. */
    static String line(int rank, String token) {
        return PREFIX + "peer=" + rank + " token=" + (token == null ? "" : token);
    }

    /**
     * The rank {@code line} proves, given the launcher's {@code tokens} (index: rank); an
     * {@link IllegalArgumentException} saying why not (never quoting the token it got). The tokens
     * are compared in constant time.
     */
    static int verify(String line, String[] tokens) {
        if (line == null || !line.startsWith(PREFIX)) {
            throw new IllegalArgumentException("it did not greet as a peer (its first line is not " + PREFIX.strip() + ")");
        }
        String rest = line.substring(PREFIX.length());
        int space = rest.indexOf(' ');
        String[] fields = space < 0 || rest.indexOf(' ', space + 1) >= 0 ? new String[0]
                : new String[] {rest.substring(0, space), rest.substring(space + 1)};
        if (fields.length != 2 || !fields[0].startsWith("peer=") || !fields[1].startsWith("token=")) {
            throw new IllegalArgumentException("its greeting is malformed");
        }
        int rank;
        try {
            rank = Integer.parseInt(fields[0].substring("peer=".length()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("its greeting names no rank", e);
        }
        if (rank < 0 || rank >= tokens.length) {
            throw new IllegalArgumentException("it claims peer " + rank + ", not one of the " + tokens.length + " this launcher started");
        }
        byte[] theirs = fields[1].substring("token=".length()).getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(theirs, tokens[rank].getBytes(StandardCharsets.UTF_8))) {
            throw new IllegalArgumentException("it claims peer " + rank + " but does not know that peer's token (AIR_EVENTS_TOKEN)");
        }
        return rank;
    }
}
