/**
 * Hew-meld progress tracking, as pure data structures (no threads, no I/O); the runtime moves its
 * messages: credit travels in the data plane right behind the data it covers, as a shuffle item on
 * the same channel (FIFO per producer and destination, so "data before its credit" holds), never
 * over the control channel.
 *
 * <h2>Definitions</h2>
 * <ul>
 *   <li><b>Epoch</b>: the slice of event time one window pane (frame) covers, {@code [e, e + length)}.</li>
 *   <li><b>Domain</b>: where an epoch's results are finalised. Under AIR routing an epoch of a
 *       tumbling window has one domain, its owner ({@code epoch index mod W}); an epoch of sliding
 *       windows has one domain per distinct owner of a window that contains it; under KEY routing
 *       every final instance is a domain of its own for every epoch.</li>
 *   <li><b>Credit</b>: every (epoch, domain) is worth exactly {@link air.hewmeld.Credit#ONE}, an integer.
 *       Each of the S sources owns {@code ONE / S} of it (the remainder to source 0).</li>
 *   <li><b>Hew</b>: whatever carries data of an epoch towards a domain carries part of the credit;
 *       splitting data over k paths splits the credit into k integer parts that sum exactly
 *       ({@link air.hewmeld.Credit#split}). Credit travels after (or with) the data it covers, on FIFO channels.</li>
 *   <li><b>Meld</b>: the domain adds up what arrives ({@link air.hewmeld.CreditLedger}); at exactly ONE
 *       the epoch is complete. A tumbling window is one epoch and fires then; a sliding window fires
 *       once every epoch it spans is complete.</li>
 *   <li>A source releases its share of an epoch when it will emit nothing more for it
 *       ({@link air.hewmeld.SourceProgress}): the newest timestamp minus the allowed disorder has
 *       passed the epoch's end, or end of input, or an idle timeout (the runtime then advances the
 *       source's event time with the wall clock from the newest timestamp seen in its JVM). Epochs it had no data for go in
 *       one range message, so a gap in event time costs one message, not one per epoch.</li>
 * </ul>
 *
 * <h2>Invariants and guarantees</h2>
 * Credit is never created or lost: the parts of a split sum to the whole, and a ledger rejects any
 * sum above ONE, a second release of an epoch by the same source, and credit for a completed
 * epoch. Safety: since every source releases its share only after emitting all its data for the
 * epoch, and data precedes its credit on every FIFO path, an epoch cannot reach ONE while any of
 * its data is in flight. Liveness: once every source has passed an epoch (or finished), all shares
 * are in flight and the epoch completes when they arrive. The owner always knows which sources
 * still hold credit ({@link air.hewmeld.CreditLedger#holders}).
 *
 * <h2>Cost</h2>
 * Per (epoch, domain) one credit message per path that carried data, plus one range message per
 * gap; no periodic traffic and no minimum over all input channels at every hop. Under AIR routing
 * an epoch's credit goes only to its owner; under KEY routing each source's share goes to every
 * domain, as a watermark would. Ledgers keep the ids of completed epochs (one long each) and each
 * source's release ranges only above the owner's low-water mark ({@code CreditLedger.compactBelow}),
 * so their memory and snapshots stay as small as the epochs in flight however long a job runs.
 */
package air.hewmeld;

