package air.runtime.impl.progress;

import air.hewmeld.Credit;
import air.hewmeld.CreditLedger;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * Hew-meld: per input a credit ledger melds the producers' credit; an epoch is complete when it
 * holds exactly ONE on every input, the moment the last piece arrives. Each producer releases in
 * ascending order over a FIFO channel, so below its newest release this operator has heard all it
 * will from it: below the least such frontier (and the oldest incomplete epoch) of every input,
 * everything is complete, and the ledgers forget it ({@link CreditLedger#compactBelow}).
 */
public final class HewMeldCompletion implements Completion {

    private final String operator;
    private final long epochLength;
    private final CreditLedger[] ledgers;
    /** Per input, per producer: every epoch below this was released. */
    private final long[][] frontiers;
    private final Listener listener;
    /** Several inputs: epochs complete on some inputs, not yet on all (not checkpointed: progress covers them on restore). */
    private final TreeSet<Long> partlyComplete = new TreeSet<>();
    private long completeBelow = Long.MIN_VALUE;

    public HewMeldCompletion(String operator, long epochLength, int[] producersPerInput, Listener listener) {
        this.operator = operator;
        this.epochLength = epochLength;
        this.listener = listener;
        this.ledgers = new CreditLedger[producersPerInput.length];
        this.frontiers = new long[producersPerInput.length][];
        for (int i = 0; i < ledgers.length; i++) {
            ledgers[i] = new CreditLedger(producersPerInput[i]);
            frontiers[i] = new long[producersPerInput[i]];
            Arrays.fill(frontiers[i], Long.MIN_VALUE);
        }
    }

    @Override
    public void onCredit(int input, int producer, long epoch, long amount) {
        frontiers[input][producer] = Math.max(frontiers[input][producer], epoch + epochLength);
        if (ledgers[input].add(epoch, producer, amount)) {
            completedOn(input, epoch);
        }
        advance();
    }

    @Override
    public void onCreditRange(int input, int producer, long from, long to) {
        frontiers[input][producer] = Math.max(frontiers[input][producer], to);
        for (long epoch : ledgers[input].release(producer, from, to)) {
            completedOn(input, epoch);
        }
        if (!partlyComplete.isEmpty()) {
            // a range completes epochs this input never heard of, which other inputs may be waiting on
            for (long epoch : List.copyOf(partlyComplete.subSet(from, to))) {
                if (ledgers[input].creditOf(epoch) == Credit.ONE) { // this producer's range may not be the input's last share
                    completedOn(input, epoch);
                }
            }
        }
        advance();
    }

    @Override
    public void onEndOfStream(int input, int producer) {
        frontiers[input][producer] = Long.MAX_VALUE;
        advance();
    }

    @Override
    public void onWatermark(int input, int producer, long watermark) {
        throw new IllegalStateException(operator + ": a watermark (" + watermark + ") from producer " + producer
                + " under hew-meld progress: the producers run watermarks (peers disagree on the progress mode?)");
    }

    /** An epoch complete on one input is complete once every other input holds ONE of it too. */
    private void completedOn(int input, long epoch) {
        for (int j = 0; j < ledgers.length; j++) {
            if (j != input && ledgers[j].creditOf(epoch) != Credit.ONE) {
                partlyComplete.add(epoch); // that input's completion, or its range release, fires it
                return;
            }
        }
        if (!partlyComplete.isEmpty()) { // only ever filled with several inputs: no boxing per epoch otherwise
            partlyComplete.remove(epoch);
        }
        listener.onEpochComplete(epoch);
    }

    private void advance() {
        long below = Long.MAX_VALUE;
        for (int i = 0; i < ledgers.length; i++) {
            below = Math.min(below, ledgers[i].oldestIncomplete());
            for (long f : frontiers[i]) {
                below = Math.min(below, f);
            }
        }
        if (below > completeBelow) {
            completeBelow = below;
            partlyComplete.headSet(below).clear();
            for (CreditLedger l : ledgers) {
                l.compactBelow(below); // the ledgers stay as small as the epochs in flight, however long the job runs
            }
            listener.onProgress(below);
        }
    }

    @Override
    public long completeBelow() {
        return completeBelow;
    }

    @Override
    public long oldestIncomplete() {
        long oldest = Long.MAX_VALUE;
        for (CreditLedger l : ledgers) {
            oldest = Math.min(oldest, l.oldestIncomplete());
        }
        return oldest;
    }

    @Override
    public int[] holders(long epoch, int[] inputOffsets) {
        List<Integer> holders = new ArrayList<>();
        for (int i = 0; i < ledgers.length; i++) {
            if (ledgers[i].creditOf(epoch) == Credit.ONE) {
                continue;
            }
            for (int p : ledgers[i].holders(epoch)) {
                holders.add(inputOffsets[i] + p);
            }
        }
        return holders.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public String incompleteAtEnd() {
        long oldest = oldestIncomplete();
        return oldest == Long.MAX_VALUE ? null
                : "every producer ended but epoch " + oldest + " never received all its credit (hew-meld protocol violated)";
    }

    @Override
    public void snapshotTo(WireOut out) {
        out.putLong(completeBelow);
        for (int i = 0; i < ledgers.length; i++) {
            for (long f : frontiers[i]) {
                out.putLong(f);
            }
            ledgers[i].snapshotTo(out);
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        completeBelow = in.getLong();
        for (int i = 0; i < ledgers.length; i++) {
            for (int p = 0; p < frontiers[i].length; p++) {
                frontiers[i][p] = in.getLong();
            }
            ledgers[i].restoreFrom(in);
        }
    }
}
