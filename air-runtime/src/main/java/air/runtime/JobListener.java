package air.runtime;

/**
 * Hears a job's {@link JobEvent}s ({@link JobConfig#listener(JobListener)}). It is called on the
 * engine thread where the event happened (the submitting thread, a checkpoint writer, a takeover
 * thread, a tasklet, the thread in {@link Job#join()}), possibly from several at once: it must be
 * thread-safe and return quickly. What it throws is logged and otherwise ignored; the job goes on.
 */
@FunctionalInterface
public interface JobListener {

    void onEvent(JobEvent event);
}
