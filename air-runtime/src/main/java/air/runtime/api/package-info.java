/**
 * Value and function types shared by the DSL and the runtime. They live here, below the DSL,
 * so that the runtime can execute them without knowing the DSL's syntax.
 */
package air.runtime.api;

