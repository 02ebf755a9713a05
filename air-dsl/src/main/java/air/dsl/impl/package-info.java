/** The DSL's internals: logical stage nodes, call-site capture and the planner. Not API. */
package air.dsl.impl;

