package air.launcher;

import java.io.IOException;

/**
 * The application's part of a supervised run with kills: after the run, compares what the peers
 * wrote with what a failure-free computation gives. The supervisor prints its outcome on the
 * {@code CHECK} line.
 */
@FunctionalInterface
public interface OutputCheck {

    /** Rows missing, rows present more than once (or with a wrong value), and rows in all. */
    record Outcome(long lost, long duplicated, long rows) {

        public boolean exact() {
            return lost == 0 && duplicated == 0;
        }
    }

    Outcome check() throws IOException;
}
