package air.runtime.impl.event;

import air.runtime.JobEvent;
import air.runtime.JobListener;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hands a job's events to its listeners on the calling thread; a listener that throws is logged and skipped. */
public final class JobEvents {

    private static final Logger LOG = LoggerFactory.getLogger(JobEvents.class);

    /** No listeners: publishing does nothing. */
    public static final JobEvents NONE = new JobEvents(List.of());

    private final List<JobListener> listeners;

    public JobEvents(List<JobListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    public void publish(JobEvent event) {
        for (JobListener l : listeners) {
            try {
                l.onEvent(event);
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError fatal) {
                    throw fatal;
                }
                LOG.warn("job '{}': listener {} threw on {}; the job goes on", event.job(), l, event, e);
            }
        }
    }

    /** Wall-clock now, for an event's {@code atMs}. */
    public static long now() {
        return System.currentTimeMillis();
    }

    /** An int array as the list events carry. */
    public static List<Integer> list(int[] values) {
        return Arrays.stream(values).boxed().toList();
    }
}
