/**
 * Progress as two strategies chosen once per job: how producers release progress
 * ({@link air.runtime.impl.progress.ProgressRelease}: watermarks or hew-meld credit) and how an
 * operator learns its input is complete ({@link air.runtime.impl.progress.Completion}: the minimum
 * of low watermarks, or epochs whose credit adds up to exactly ONE). They wrap the pure data
 * structures of {@code air-hewmeld} (ledger, source progress, watermark tracker) and are the only
 * place that knows which mode runs: operators see {@code onProgress(completeBelow)} either way.
 */
package air.runtime.impl.progress;

