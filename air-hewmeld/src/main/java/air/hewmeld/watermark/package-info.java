/**
 * Low watermarks, the conventional progress technique that hew-meld is measured against: each
 * channel carries a monotone "nothing older will follow" timestamp and an operator's progress is
 * the minimum over its inputs. Kept as plain data so that the runtime, the tests and a future
 * progress broadcaster all run the same logic.
 */
package air.hewmeld.watermark;

