package air.runtime.plan;

/** How the engine decides that a window is complete. */
public enum Progress {
    /** Low watermarks: max timestamp minus disorder, shipped to every final instance at frame boundaries. */
    WATERMARK,
    /**
     * Hew-meld: exact integer credit per epoch, released by every source and melded at the epoch's
     * owner; the window fires the moment its last credit arrives (see {@code air.hewmeld}).
     */
    HEWMELD
}
