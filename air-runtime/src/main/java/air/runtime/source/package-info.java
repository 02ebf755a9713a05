/** Built-in sources. Their readers keep positions as plain numbers so that a job can be replayed. */
package air.runtime.source;

