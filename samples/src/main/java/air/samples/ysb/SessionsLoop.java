package air.samples.ysb;

import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import java.util.List;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * The plain loop of the sessions query (YSB-SPEC 11), no engine: events in index order (their
 * event times never decrease), per ad the open session's first time, last time and count; an
 * event G ms or more after its ad's last one closes that session and opens the next. The rows,
 * sorted canonically, are what the engine's run must write byte for byte.
 */
public final class SessionsLoop {

    /** An ad's open session. */
    private static final class Open {
        long start;
        long last;
        long count;
    }

    private SessionsLoop() {
    }

    /** The canonical rows of the sessions of {@code n} events. */
    public static YsbRows rows(long n, long seed, long rate, long gapMs) {
        YsbGenerator g = new YsbGenerator(seed, rate);
        YsbResultSink.Rows rows = new YsbResultSink.Rows();
        LongObjectHashMap<Open> open = new LongObjectHashMap<>();
        for (long i = 0; i < n; i++) {
            YsbEvent e = g.event(i);
            Open s = open.get(e.adId());
            if (s != null && e.eventTime() - s.last >= gapMs) { // YSB-SPEC 11: a gap of G or more ends a session
                rows.add(s.start, e.adId(), s.count, s.last + gapMs, 0);
                s = null;
            }
            if (s == null) {
                s = new Open();
                s.start = e.eventTime();
                open.put(e.adId(), s);
            }
            s.last = e.eventTime();
            s.count++;
        }
        open.forEachKeyValue((ad, s) -> rows.add(s.start, ad, s.count, s.last + gapMs, 0));
        return YsbRows.merge(List.of(rows), YsbRows.Shape.SESSIONS);
    }

    /** The rows of the run {@code args} describes. */
    static YsbRows rows(YsbArgs args) {
        return rows(args.n(), args.seed(), args.rate(), args.gapMs());
    }
}
