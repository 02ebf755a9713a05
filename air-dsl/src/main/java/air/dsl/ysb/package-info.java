/**
 * The YSB-mem benchmark's data (YSB-SPEC): the deterministic event generator and its record.
 * It is a DSL source ({@link air.dsl.Sources#ysbMem}) because every engine here is compared on it.
 */
package air.dsl.ysb;
