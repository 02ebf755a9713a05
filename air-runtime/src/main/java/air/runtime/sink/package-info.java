/** Built-in sinks: one writer per worker, merged or serialised so that workers do not contend per record. */
package air.runtime.sink;

