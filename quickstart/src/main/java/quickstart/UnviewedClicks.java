package quickstart;

import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.Stage;
import air.runtime.JobConfig;
import air.runtime.api.Codecs;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.ListState;
import air.runtime.api.ProcessContext;
import air.runtime.api.SinkFactory;
import air.runtime.api.StateDescriptor;
import air.runtime.api.TimeDomain;
import java.util.ArrayList;
import java.util.List;

/**
 * A keyed process function with state and event-time timers: alert on every click of an ad that
 * had no view of the same ad in the 5 s before it (inclusive). Views may arrive out of order (up
 * to 1 s), so a click is judged by a timer once event time has passed it: by then every view
 * that could excuse it has arrived.
 */
public final class UnviewedClicks {

    /** An ad was shown ({@code click == false}) or clicked. */
    public record AdEvent(long time, long adId, boolean click) { }

    /** A click at {@code time} on an ad that nobody saw in the 5 s before. */
    public record Alert(long adId, long time) { }

    static final long WINDOW_MS = 5_000;
    static final StateDescriptor<ListState<Long>> VIEWS = StateDescriptor.list("views", Codecs.LONG);
    static final StateDescriptor<ListState<Long>> CLICKS = StateDescriptor.list("pending clicks", Codecs.LONG);

    private UnviewedClicks() {
    }

    /** The job on any stream of ad events with their times declared. */
    public static Stage<Alert> alerts(Stage<AdEvent> events) {
        return events.keyByLong(AdEvent::adId).process(new Judge(), VIEWS, CLICKS).named("unviewed clicks");
    }

    /** Remembers the ad's recent views and its clicks still to judge; judges a click once event time passed it. */
    static final class Judge implements KeyedProcessFunction<Long, AdEvent, Alert> {

        @Override
        public void process(AdEvent e, ProcessContext<Long, Alert> ctx) {
            if (e.click()) {
                ctx.state(CLICKS).add(e.time());
                ctx.registerEventTimeTimer(e.time());
            } else {
                ctx.state(VIEWS).add(e.time());
            }
        }

        @Override
        public void onTimer(long time, TimeDomain domain, ProcessContext<Long, Alert> ctx) {
            List<Long> views = ctx.state(VIEWS).get();
            List<Long> pending = new ArrayList<>();
            for (long click : ctx.state(CLICKS).get()) {
                if (click > time) {
                    pending.add(click); // its own timer comes later
                } else if (views.stream().noneMatch(v -> v <= click && v >= click - WINDOW_MS)) {
                    ctx.emit(new Alert(ctx.key(), click));
                }
            }
            ctx.state(CLICKS).update(pending);
            // views older than any click still to come can need (everything up to `time` has arrived)
            ctx.state(VIEWS).update(views.stream().filter(v -> v >= time - WINDOW_MS).toList());
        }
    }

    /** The sample input: ad 7 viewed then clicked twice (the second click 6 s after the view), ad 8 clicked unseen. */
    public static List<AdEvent> sample() {
        return List.of(new AdEvent(1_000, 7, false), new AdEvent(3_000, 7, true), new AdEvent(2_000, 8, true),
                new AdEvent(2_500, 8, false), new AdEvent(7_000, 7, true), new AdEvent(6_500, 7, false), new AdEvent(9_000, 8, false),
                new AdEvent(12_000, 7, true));
    }

    public static Pipeline pipeline(List<AdEvent> events, SinkFactory<? super Alert> sink) {
        Pipeline p = Pipeline.create();
        alerts(p.readFrom(Sources.fromList(events)).withTimestamps(AdEvent::time, 1_000)).writeTo(sink);
        return p;
    }

    public static void main(String[] args) {
        pipeline(sample(), Sinks.print()).execute(JobConfig.defaults());
    }
}
