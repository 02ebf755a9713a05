package air.runtime.impl.routing;

import air.runtime.api.WindowDefinition;
import java.util.Arrays;

/** AIR routing: owners by window index, {@code floor(start / slide) mod n}. Same on every peer. */
public final class AirRouting {

    private AirRouting() {
    }

    public static int ownerOfWindow(long windowStart, WindowDefinition window, int n) {
        return (int) Math.floorMod(Math.floorDiv(windowStart, window.slide()), (long) n);
    }

    /** The distinct owners of the windows that contain the frame starting at {@code frameStart}. */
    public static int[] ownersOfFrame(long frameStart, WindowDefinition window, int n) {
        long framesPerWindow = window.size() / window.slide();
        if (framesPerWindow == 1 || n == 1) {
            return new int[] {ownerOfWindow(frameStart, window, n)};
        }
        int count = (int) Math.min(framesPerWindow, n);
        int[] owners = new int[count];
        int found = 0;
        for (long k = 0; k < framesPerWindow && found < count; k++) {
            int owner = ownerOfWindow(frameStart - k * window.slide(), window, n);
            boolean seen = false;
            for (int i = 0; i < found; i++) {
                seen |= owners[i] == owner;
            }
            if (!seen) {
                owners[found++] = owner;
            }
        }
        return Arrays.copyOf(owners, found);
    }
}
