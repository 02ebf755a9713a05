/**
 * YSB-mem as an AIR job with its command line ({@code ./air ysb N [P] ...}): the query, the
 * users (large keyed state) query, the result sink and report, the reference checksums and the
 * output check the fault-tolerance runs are judged by. Samples use the public API only.
 */
package air.samples.ysb;

