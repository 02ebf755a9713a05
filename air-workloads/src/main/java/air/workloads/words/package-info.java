/**
 * A word-count workload: seeded sentences over a fixed vocabulary, replayable by index like the
 * YSB events, for the word-count sample and its reference check.
 */
package air.workloads.words;
