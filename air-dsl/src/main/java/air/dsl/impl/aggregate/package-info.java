/** Built-in aggregate operations, each a small class with a mutable accumulator. */
package air.dsl.impl.aggregate;

