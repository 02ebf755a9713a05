/**
 * The fluent DSL: {@link air.dsl.Pipeline}, {@link air.dsl.Stage} and friends. Stages record a
 * pure-data logical plan and validate every call where it is made, so misuse fails with the call
 * and its source line before anything runs. The planner fuses stateless chains and splits keyed
 * windows into a local partial and a shuffled final half.
 */
package air.dsl;

