package air.launcher;

import air.runtime.JobEvent;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The line protocol of the event channel: one {@link PeerEvent} per line, UTF-8, ending in
 * {@code \n}:
 *
 * <pre>
 * air-event/1 KIND FIELD=VALUE FIELD=VALUE ...
 * </pre>
 *
 * Fields are separated by one space and may come in any order; unknown fields are ignored, and a
 * line of an unknown {@code KIND} decodes to null (so that newer peers can add kinds). A value is a
 * decimal integer, a list of decimal integers separated by commas (empty for none), or text
 * percent-encoded as in {@link URLEncoder} (UTF-8; so never a space, {@code =} or line break).
 * Every kind has {@code peer} (rank) and {@code at} (wall-clock ms on the peer); those of job events
 * also {@code job} (text):
 *
 * <pre>
 * started            tasklets workers
 * checkpoint-written checkpoint parts bytes
 * state-replicated   blocks checkpoint replicas   (blocks and replicas are lists)
 * takeover           dead blocks checkpoint       (peer is the host)
 * recovering         checkpoint
 * running-again      share checkpoint after       (share: whose share; after: ms since the loss or start)
 * part-done
 * finished           elapsed
 * failed             reason                       (text)
 * cancelled
 * first-output                                    (no job: the first row of this peer process)
 * restored-output    instance                     (no job: a restored sink writer's first new row)
 * </pre>
 *
 * e.g. {@code air-event/1 state-replicated job=ysb-mem peer=2 at=1733070000123 blocks=1,2 checkpoint=14 replicas=3}.
 */
public final class EventLine {

    /** What every line begins with: the protocol and its version. */
    public static final String PREFIX = "air-event/1 ";

    private EventLine() {
    }

    /** The line of {@code event}, without the line break. */
    public static String encode(PeerEvent event) {
        return switch (event) {
            case PeerEvent.Job j -> encode(j.event());
            case PeerEvent.FirstOutput f -> new Builder("first-output").num("peer", f.peer()).num("at", f.atMs()).toString();
            case PeerEvent.RestoredOutput r -> new Builder("restored-output").num("peer", r.peer()).num("at", r.atMs())
                    .num("instance", r.instance()).toString();
        };
    }

    /** The line of a job event, without the line break. */
    public static String encode(JobEvent event) {
        return switch (event) {
            case JobEvent.Started e -> job("started", e).num("tasklets", e.tasklets()).num("workers", e.workers()).toString();
            case JobEvent.CheckpointWritten e -> job("checkpoint-written", e).num("checkpoint", e.checkpoint()).num("parts", e.parts())
                    .num("bytes", e.bytes()).toString();
            case JobEvent.StateReplicated e -> job("state-replicated", e).list("blocks", e.blocks()).num("checkpoint", e.checkpoint())
                    .list("replicas", e.replicas()).toString();
            case JobEvent.Takeover e -> job("takeover", e).num("dead", e.dead()).list("blocks", e.blocks())
                    .num("checkpoint", e.checkpoint()).toString();
            case JobEvent.Recovering e -> job("recovering", e).num("checkpoint", e.checkpoint()).toString();
            case JobEvent.RunningAgain e -> job("running-again", e).num("share", e.share()).num("checkpoint", e.checkpoint())
                    .num("after", e.afterMs()).toString();
            case JobEvent.PartDone e -> job("part-done", e).toString();
            case JobEvent.Finished e -> job("finished", e).num("elapsed", e.elapsedMs()).toString();
            case JobEvent.Failed e -> job("failed", e).text("reason", e.reason()).toString();
            case JobEvent.Cancelled e -> job("cancelled", e).toString();
            case JobEvent.Stopped e -> job("stopped", e).num("savepoint", e.savepoint()).toString();
        };
    }

    private static Builder job(String kind, JobEvent e) {
        return new Builder(kind).text("job", e.job()).num("peer", e.peer()).num("at", e.atMs());
    }

    /**
     * The event of one line (a trailing line break is ignored); null for a well-formed line of a
     * kind this version does not know.
     *
     * @throws IllegalArgumentException for a line that is not of this protocol, or lacks a field
     */
    public static PeerEvent decode(String line) {
        String l = line.endsWith("\n") ? line.substring(0, line.length() - 1) : line;
        if (!l.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not an event line (no '" + PREFIX.trim() + "'): " + l);
        }
        int kindEnd = l.indexOf(' ', PREFIX.length());
        String kind = l.substring(PREFIX.length(), kindEnd < 0 ? l.length() : kindEnd);
        Fields f = new Fields(l, kindEnd < 0 ? l.length() : kindEnd + 1);
        return switch (kind) {
            case "started" -> job(new JobEvent.Started(f.text("job"), f.integer("peer"), f.num("at"), f.integer("tasklets"),
                    f.integer("workers")));
            case "checkpoint-written" -> job(new JobEvent.CheckpointWritten(f.text("job"), f.integer("peer"), f.num("at"),
                    f.num("checkpoint"), f.integer("parts"), f.num("bytes")));
            case "state-replicated" -> job(new JobEvent.StateReplicated(f.text("job"), f.integer("peer"), f.num("at"), f.list("blocks"),
                    f.num("checkpoint"), f.list("replicas")));
            case "takeover" -> job(new JobEvent.Takeover(f.text("job"), f.integer("peer"), f.num("at"), f.integer("dead"),
                    f.list("blocks"), f.num("checkpoint")));
            case "recovering" -> job(new JobEvent.Recovering(f.text("job"), f.integer("peer"), f.num("at"), f.num("checkpoint")));
            case "running-again" -> job(new JobEvent.RunningAgain(f.text("job"), f.integer("peer"), f.num("at"), f.integer("share"),
                    f.num("checkpoint"), f.num("after")));
            case "part-done" -> job(new JobEvent.PartDone(f.text("job"), f.integer("peer"), f.num("at")));
            case "finished" -> job(new JobEvent.Finished(f.text("job"), f.integer("peer"), f.num("at"), f.num("elapsed")));
            case "failed" -> job(new JobEvent.Failed(f.text("job"), f.integer("peer"), f.num("at"), f.text("reason")));
            case "cancelled" -> job(new JobEvent.Cancelled(f.text("job"), f.integer("peer"), f.num("at")));
            case "stopped" -> job(new JobEvent.Stopped(f.text("job"), f.integer("peer"), f.num("at"), f.num("savepoint")));
            case "first-output" -> new PeerEvent.FirstOutput(f.integer("peer"), f.num("at"));
            case "restored-output" -> new PeerEvent.RestoredOutput(f.integer("peer"), f.num("at"), f.integer("instance"));
            default -> null;
        };
    }

    private static PeerEvent job(JobEvent e) {
        return new PeerEvent.Job(e);
    }

    /** Appends fields to a line. */
    private static final class Builder {
        private final StringBuilder sb = new StringBuilder(96);

        Builder(String kind) {
            sb.append(PREFIX).append(kind);
        }

        Builder num(String name, long value) {
            sb.append(' ').append(name).append('=').append(value);
            return this;
        }

        Builder list(String name, List<Integer> values) {
            sb.append(' ').append(name).append('=');
            for (int i = 0; i < values.size(); i++) {
                sb.append(i == 0 ? "" : ",").append(values.get(i).intValue());
            }
            return this;
        }

        Builder text(String name, String value) {
            sb.append(' ').append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
            return this;
        }

        @Override
        public String toString() {
            return sb.toString();
        }
    }

    /** The fields of one line, by name. */
    private static final class Fields {
        private final String line;
        private final Map<String, String> values = new HashMap<>();

        Fields(String line, int from) {
            this.line = line;
            int i = from;
            while (i < line.length()) {
                int end = line.indexOf(' ', i);
                if (end < 0) {
                    end = line.length();
                }
                int eq = line.indexOf('=', i);
                if (eq < 0 || eq > end || eq == i) {
                    throw new IllegalArgumentException("field without a name or '=' at column " + i + ": " + line);
                }
                values.put(line.substring(i, eq), line.substring(eq + 1, end));
                i = end + 1;
            }
        }

        private String raw(String name) {
            String v = values.get(name);
            if (v == null) {
                throw new IllegalArgumentException("no field '" + name + "': " + line);
            }
            return v;
        }

        long num(String name) {
            String v = raw(name);
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("field '" + name + "' is not a number: " + line, e);
            }
        }

        int integer(String name) {
            long v = num(name);
            if (v != (int) v) {
                throw new IllegalArgumentException("field '" + name + "' is out of range: " + line);
            }
            return (int) v;
        }

        List<Integer> list(String name) {
            String v = raw(name);
            List<Integer> out = new ArrayList<>();
            int i = 0;
            while (i < v.length()) {
                int end = v.indexOf(',', i);
                if (end < 0) {
                    end = v.length();
                }
                try {
                    out.add(Integer.parseInt(v.substring(i, end)));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("field '" + name + "' is not a list of numbers: " + line, e);
                }
                i = end + 1;
            }
            return out;
        }

        String text(String name) {
            try {
                return URLDecoder.decode(raw(name), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("field '" + name + "' is not percent-encoded text: " + line, e);
            }
        }
    }
}
