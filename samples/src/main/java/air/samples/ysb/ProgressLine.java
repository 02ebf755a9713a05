package air.samples.ysb;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A live progress line built on the job's meters: events read, rate over the last second, window
 * results, queued batches. Overwrites itself on a terminal, prints a line a second otherwise.
 */
final class ProgressLine implements AutoCloseable {

    private final MeterRegistry registry;
    private final long total;
    private final PrintStream out;
    private final boolean terminal = System.console() != null;
    private final Thread thread;
    private volatile boolean stopped;

    ProgressLine(MeterRegistry registry, long total, PrintStream out) {
        this.registry = registry;
        this.total = total;
        this.out = out;
        this.thread = Thread.ofPlatform().daemon().name("ysb-progress").unstarted(this::loop);
    }

    void start() {
        thread.start();
    }

    private void loop() {
        long lastEvents = 0;
        long lastNanos = System.nanoTime();
        while (!stopped) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            long events = sum("air.records.out", "source");
            long windows = sum("air.window.results", null);
            double rate = (events - lastEvents) * 1e9 / (now - lastNanos);
            lastEvents = events;
            lastNanos = now;
            String line = String.format(Locale.ROOT, "progress: %,d / %,d events (%.0f%%), %.2f M events/s, %,d window rows",
                    events, total, total == 0 ? 100.0 : 100.0 * events / total, rate / 1e6, windows);
            if (!stopped) {
                out.print(terminal ? "\r" + line + "   " : line + "\n");
                out.flush();
            }
        }
    }

    private long sum(String name, String kind) {
        var search = registry.find(name);
        if (kind != null) {
            search = search.tag("kind", kind);
        }
        return (long) search.functionCounters().stream().mapToDouble(FunctionCounter::count).sum();
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (terminal) {
            out.println();
        }
    }
}
