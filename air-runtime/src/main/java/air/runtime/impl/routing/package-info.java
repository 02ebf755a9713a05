/**
 * Routing of windowed partials as one object per job ({@link air.runtime.impl.routing.WindowRouter}):
 * KEY (hash of the key) or AIR (by window index, the AIR engine's dynamic sharding). The partial
 * operator asks it where a finished frame and its credit go, the final operator whether it emits
 * a window; neither knows which routing runs. The owner functions are pure and the same on every
 * peer, which is what lets peers route without a coordinator.
 */
package air.runtime.impl.routing;

